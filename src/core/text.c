// lidarsim core: the growing text buffer of text.h.
#include "core/text.h"

#include "lidarsim/base.h"

#include <string.h>

void lsText_Append(lsText* text, const char* s, size_t n)
{
    if (text->data == NULL || text->length + n + 1 > text->capacity)
    {
        size_t grown = text->capacity < 4096 ? 4096 : text->capacity;
        while (text->length + n + 1 > grown)
        {
            grown *= 2;
        }
        text->data = lsRealloc(text->data, text->capacity, grown);
        text->capacity = grown;
    }
    memcpy(text->data + text->length, s, n);
    text->length += n;
    text->data[text->length] = '\0';
}
