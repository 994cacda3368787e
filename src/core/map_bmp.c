// lidarsim core: Windows and OS/2 bitmaps for maps (see map_image.h). Nav2's map saver offers BMP beside PGM and
// PNG. Debian has no small, well-kept BMP decoder (only whole image toolkits, GraphicsMagick among them, whose
// dozens of coders a map reader would carry for one format), and a bitmap is a header, a palette or masks, and rows:
// lidarsim reads it here, every read checked against the file's size.
#include "core/map_bmp.h"

#include "core/alloc.h"

#include <string.h>

enum
{
    ls_bmpRgb = 0,
    ls_bmpRle8 = 1,
    ls_bmpRle4 = 2,
    ls_bmpBitFields = 3, // OS/2 2.x: Huffman 1D
    ls_bmpJpeg = 4,      // OS/2 2.x: RLE24
    ls_bmpPng = 5,
    ls_bmpAlphaBitFields = 6,
};

#define LS_BMP_FILE_HEADER 14

static uint32_t U16(const unsigned char* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t U32(const unsigned char* p) { return U16(p) | U16(p + 2) << 16; }

// One channel of a 16- or 32-bit pixel: its mask, where the mask starts and how many bits it has.
typedef struct Channel
{
    uint32_t mask;
    int shift, bits;
} Channel;

typedef struct Bmp
{
    const unsigned char* data;
    size_t size;
    const char* label;
    const lsBmpSink* sink;
    int width, height; // height > 0; topDown says which way the file's rows go
    bool topDown, os2, hasAlpha;
    int bits;
    uint32_t compression;
    size_t pixels; // where the pixel data starts
    uint16_t palette[256][3];
    int paletteCount;
    Channel channels[4]; // red, green, blue, alpha (mask 0: none)
    uint16_t* rgba;      // one row of quanta for the sink
    uint8_t* indices;    // an RLE file's row of palette indices
} Bmp;

bool lsIsBmp(const unsigned char* data, size_t size) { return size >= 2 && data[0] == 'B' && data[1] == 'M'; }

// y counted from the top of the image, for the sink and for messages, from the file's row r.
static int RowFromTop(const Bmp* b, int r) { return b->topDown ? r : b->height - 1 - r; }

static bool SetChannel(Bmp* b, int k, uint32_t mask, lsError* err)
{
    static const char* const names[4] = {"red", "green", "blue", "alpha"};
    Channel* c = b->channels + k;
    c->mask = mask;
    c->shift = 0;
    c->bits = 0;
    if (mask == 0)
        return true;
    while (((mask >> c->shift) & 1u) == 0)
        ++c->shift;
    uint32_t run = mask >> c->shift;
    if ((run & (run + 1u)) != 0) // not one run of set bits
        return lsFail(err, "%s: the %s mask 0x%08x is not one run of bits", b->label, names[k], (unsigned)mask);
    if (b->bits == 16 && (mask >> 16) != 0)
        return lsFail(err, "%s: the %s mask 0x%08x reaches past a 16-bit pixel", b->label, names[k], (unsigned)mask);
    for (; run != 0; run >>= 1) // (a 32-bit run: no shift by 32)
        ++c->bits;
    return true;
}

// A channel's value as a 16-bit quantum, as GraphicsMagick 1.3.40 makes it: the value's bits put at the top of 16
// (the top 16 of a wider one), and an 8-bit value repeated below (v * 257); a narrower one is not (5-bit 31 is
// 0xF800, where ImageMagick repeats its bits to 0xFFFF).
static uint16_t ChannelQuantum(const Channel* c, uint32_t pixel)
{
    if (c->mask == 0)
        return 0;
    uint32_t v = (pixel & c->mask) >> c->shift;
    uint32_t q = c->bits >= 16 ? v >> (c->bits - 16) : v << (16 - c->bits);
    return (uint16_t)(c->bits == 8 ? q | q >> 8 : q);
}

// The info header, the masks and the palette: everything before the pixels.
static bool ReadHeaders(Bmp* b, lsError* err)
{
    const unsigned char* d = b->data;
    if (b->size < LS_BMP_FILE_HEADER + 4)
        return lsFail(err, "%s: a bitmap of %zu bytes ends inside its headers", b->label, b->size);
    uint32_t offset = U32(d + 10), headerSize = U32(d + LS_BMP_FILE_HEADER);
    bool core = headerSize == 12;
    bool windows = headerSize == 40 || headerSize == 52 || headerSize == 56 || headerSize == 108 || headerSize == 124;
    b->os2 = !core && !windows && headerSize >= 16 && headerSize <= 64;
    if (!core && !windows && !b->os2)
        return lsFail(err, "%s: an info header of %u bytes is not one of a bitmap's (12, 16 to 64, 108 or 124)",
                      b->label, (unsigned)headerSize);
    if (b->size < (size_t)LS_BMP_FILE_HEADER + headerSize)
        return lsFail(err, "%s: the file ends inside its %u-byte info header (%zu bytes)", b->label,
                      (unsigned)headerSize, b->size);
    const unsigned char* h = d + LS_BMP_FILE_HEADER;
    long long width, height;
    if (core)
    {
        width = U16(h + 4), height = U16(h + 6);
        b->bits = (int)U16(h + 10);
        b->compression = ls_bmpRgb;
    }
    else
    {
        width = (int32_t)U32(h + 4), height = (int32_t)U32(h + 8);
        b->bits = (int)U16(h + 14);
        b->compression = headerSize >= 20 ? U32(h + 16) : ls_bmpRgb;
    }
    if (b->os2 && b->compression > ls_bmpRle4)
        return lsFail(err, "%s: OS/2 %s compression is not read (save the map as PGM, PNG or an uncompressed BMP)",
                      b->label,
                      b->compression == ls_bmpBitFields ? "Huffman"
                      : b->compression == ls_bmpJpeg    ? "RLE24"
                                                        : "unknown");
    if (b->compression == ls_bmpJpeg || b->compression == ls_bmpPng)
        return lsFail(err, "%s: a bitmap holding a %s image is not read (save the map as PGM, PNG or BMP)", b->label,
                      b->compression == ls_bmpJpeg ? "JPEG" : "PNG");
    if (b->compression > ls_bmpAlphaBitFields)
        return lsFail(err, "%s: unknown bitmap compression %u", b->label, (unsigned)b->compression);
    bool fields = b->compression == ls_bmpBitFields || b->compression == ls_bmpAlphaBitFields;
    bool valid = b->compression == ls_bmpRle8   ? b->bits == 8
                 : b->compression == ls_bmpRle4 ? b->bits == 4
                 : fields
                     ? b->bits == 16 || b->bits == 32
                     : b->bits == 1 || b->bits == 4 || b->bits == 8 || b->bits == 16 || b->bits == 24 || b->bits == 32;
    static const char* const compressions[] = {"uncompressed",    "RLE8", "RLE4", "bit fields", "", "",
                                               "alpha bit fields"};
    if (!valid)
        return lsFail(err, "%s: %d bits a pixel cannot be %s", b->label, b->bits, compressions[b->compression]);
    b->topDown = height < 0;
    height = height < 0 ? -height : height;
    if (b->topDown && (b->compression == ls_bmpRle8 || b->compression == ls_bmpRle4))
        return lsFail(err, "%s: an RLE bitmap cannot run top-down (its height is negative)", b->label);
    // The sink checks the size against the map's limit; here only what an int holds.
    if (width <= 0 || height == 0)
        return lsFail(err, "%s: the image is empty (%lld x %lld pixels)", b->label, width, height);
    if (height > INT32_MAX) // a top-down height of -2^31
        return lsFail(err, "%s: %lld x %lld pixels, over the limit", b->label, width, height);
    b->width = (int)width, b->height = (int)height;

    // Masks, as GraphicsMagick 1.3.40 (map_server's reader on Debian 12) takes them: inside a V2+ header whatever the
    // compression, after a 40-byte header for bit fields. Uncompressed pixels take the defaults: 16 bits 5-5-5, 32
    // bits 8-8-8 with the fourth byte as alpha (GraphicsMagick reads it so, though the format calls it padding). Bit
    // fields whose masks are all zero give black pixels, as there.
    size_t at = LS_BMP_FILE_HEADER + headerSize;
    uint32_t masks[4] = {0, 0, 0, 0};
    if (windows && headerSize >= 52)
    {
        for (int k = 0; k < (headerSize >= 56 ? 4 : 3); ++k)
            masks[k] = U32(h + 40 + 4 * (size_t)k);
    }
    if (fields && headerSize == 40)
    {
        int count = b->compression == ls_bmpAlphaBitFields ? 4 : 3;
        if (b->size < at + 4u * (size_t)count)
            return lsFail(err, "%s: the file ends inside the bit fields' masks", b->label);
        for (int k = 0; k < count; ++k)
            masks[k] = U32(d + at + 4 * (size_t)k);
        at += 4u * (size_t)count;
    }
    // An alpha mask given makes the image one with alpha whatever its pixels (GraphicsMagick's "matte": in trinary
    // mode map_server averages alpha in, opaque for a palette's or 24-bit pixel), and so does an uncompressed 32-bit
    // pixel. An uncompressed 16-bit pixel with an alpha mask in its header then reads as transparent (the mask
    // replaced by the defaults, which have none), as there.
    b->hasAlpha = masks[3] != 0 || (b->compression == ls_bmpRgb && b->bits == 32);
    if (b->compression == ls_bmpRgb)
    {
        masks[0] = b->bits == 16 ? 0x7c00u : 0x00ff0000u;
        masks[1] = b->bits == 16 ? 0x03e0u : 0x0000ff00u;
        masks[2] = b->bits == 16 ? 0x001fu : 0x000000ffu;
        masks[3] = b->bits == 32 ? 0xff000000u : 0u;
    }
    if (b->bits != 16 && b->bits != 32)
        memset(masks, 0, sizeof masks);
    for (int k = 0; k < 4; ++k)
        if (!SetChannel(b, k, masks[k], err))
            return false;

    // The palette, between the headers and the pixels.
    if (b->bits <= 8)
    {
        size_t entry = core || headerSize == 64 ? 3 : 4; // the core and OS/2 2.x 64-byte headers' entries: BGR
        uint32_t used = headerSize >= 36 ? U32(h + 32) : 0;
        if (used > (1u << b->bits))
            return lsFail(err, "%s: a palette of %u colours, more than %d-bit pixels index (%u)", b->label,
                          (unsigned)used, b->bits, 1u << b->bits);
        size_t count = used != 0 ? used : (size_t)1 << b->bits;
        size_t room = offset > at ? (offset - at) / entry : 0;
        count = used == 0 && count > room ? room : count; // writers may leave out the unused entries
        if (count == 0)
            return lsFail(err, "%s: a %d-bit bitmap without a palette", b->label, b->bits);
        if (at + count * entry > b->size || at + count * entry > offset)
            return lsFail(err, "%s: the palette of %zu colours runs past %s", b->label, count,
                          at + count * entry > b->size ? "the end of the file" : "the start of the pixels");
        for (size_t i = 0; i < count; ++i)
        {
            const unsigned char* e = d + at + i * entry;
            b->palette[i][0] = (uint16_t)(e[2] * 257u), b->palette[i][1] = (uint16_t)(e[1] * 257u);
            b->palette[i][2] = (uint16_t)(e[0] * 257u);
        }
        b->paletteCount = (int)count;
    }
    if (offset < at || offset > b->size)
        return lsFail(err, "%s: the pixels' offset %u lies %s", b->label, (unsigned)offset,
                      offset < at ? "inside the headers" : "past the end of the file");
    b->pixels = offset;
    return true;
}

// Sends a row of palette indices (x from 0) to the sink as quanta.
static bool EmitIndices(Bmp* b, int r, const uint8_t* indices, lsError* err)
{
    int y = RowFromTop(b, r);
    for (int x = 0; x < b->width; ++x)
    {
        int i = indices[x];
        if (i >= b->paletteCount)
            return lsFail(err, "%s: pixel (%d, %d) is colour %d of a palette of %d", b->label, x, y, i,
                          b->paletteCount);
        uint16_t* q = b->rgba + 4 * (size_t)x;
        q[0] = b->palette[i][0], q[1] = b->palette[i][1], q[2] = b->palette[i][2], q[3] = 65535;
    }
    b->sink->row(b->sink->context, y, b->rgba);
    return true;
}

static bool DecodeRows(Bmp* b, lsError* err)
{
    size_t stride = ((size_t)b->bits * (size_t)b->width + 31) / 32 * 4;
    size_t available = (b->size - b->pixels) / stride;
    if (available < (size_t)b->height)
        return lsFail(err,
                      "%s: the pixels end at pixel (0, %d), row %zu of %d in the file (the file is cut short: %zu "
                      "bytes of pixels, %zu needed)",
                      b->label, RowFromTop(b, (int)available), available, b->height, b->size - b->pixels,
                      stride * (size_t)b->height);
    for (int r = 0; r < b->height; ++r)
    {
        const unsigned char* row = b->data + b->pixels + (size_t)r * stride;
        if (b->bits <= 8)
        {
            int perByte = 8 / b->bits;
            unsigned mask = (1u << b->bits) - 1u;
            for (int x = 0; x < b->width; ++x)
            {
                int shift = 8 - b->bits * (x % perByte + 1);
                b->indices[x] = (uint8_t)((row[x / perByte] >> shift) & mask);
            }
            if (!EmitIndices(b, r, b->indices, err))
                return false;
            continue;
        }
        for (int x = 0; x < b->width; ++x)
        {
            uint16_t* q = b->rgba + 4 * (size_t)x;
            if (b->bits == 24)
            {
                const unsigned char* p = row + 3 * (size_t)x;
                q[0] = (uint16_t)(p[2] * 257u), q[1] = (uint16_t)(p[1] * 257u), q[2] = (uint16_t)(p[0] * 257u);
                q[3] = 65535;
                continue;
            }
            uint32_t pixel = b->bits == 16 ? U16(row + 2 * (size_t)x) : U32(row + 4 * (size_t)x);
            for (int k = 0; k < 3; ++k)
                q[k] = ChannelQuantum(b->channels + k, pixel);
            q[3] = b->hasAlpha ? ChannelQuantum(b->channels + 3, pixel) : 65535;
        }
        b->sink->row(b->sink->context, RowFromTop(b, r), b->rgba);
    }
    return true;
}

// RLE8 and RLE4: runs of one index (or two alternating, RLE4), literal runs padded to 16 bits, and escapes for a
// row's end, the bitmap's end and a jump. Every row is sent once, in the file's order; what a file skips takes
// palette entry 0.
static bool DecodeRle(Bmp* b, lsError* err)
{
    bool four = b->compression == ls_bmpRle4;
    const unsigned char* d = b->data;
    size_t p = b->pixels;
    int x = 0, r = 0;
    memset(b->indices, 0, (size_t)b->width);
    while (r < b->height)
    {
        if (p + 2 > b->size)
            return lsFail(err, "%s: the RLE data ends at pixel (%d, %d), before the bitmap's end", b->label, x,
                          RowFromTop(b, r));
        unsigned count = d[p], value = d[p + 1];
        p += 2;
        // A run. Encoders run into the row's padding (ImageMagick's does): pixels past the row are dropped.
        if (count > 0)
        {
            for (unsigned i = 0; i < count && x < b->width; ++i)
                b->indices[x++] = (uint8_t)(!four ? value : (i & 1u) == 0 ? value >> 4 : value & 15u);
            continue;
        }
        if (value == 0 || value == 1) // the row's end, the bitmap's end
        {
            if (!EmitIndices(b, r++, b->indices, err))
                return false;
            memset(b->indices, 0, (size_t)b->width);
            x = 0;
            if (value == 0)
                continue;
            while (r < b->height)
                if (!EmitIndices(b, r++, b->indices, err))
                    return false;
            break;
        }
        if (value == 2) // a jump right and up
        {
            if (p + 2 > b->size)
                return lsFail(err, "%s: the RLE data ends inside a jump at pixel (%d, %d)", b->label, x,
                              RowFromTop(b, r));
            unsigned dx = d[p], dy = d[p + 1];
            p += 2;
            // It must land in the image: a column up to the row's end (only the row's end can follow), a row of it.
            if ((unsigned)(b->width - x) < dx || (dy > 0 && (unsigned)(b->height - r) <= dy))
                return lsFail(err, "%s: an RLE jump by (%u, %u) from pixel (%d, %d) leaves the image (byte %zu)",
                              b->label, dx, dy, x, RowFromTop(b, r), p - 4);
            for (unsigned k = 0; k < dy; ++k)
            {
                if (!EmitIndices(b, r++, b->indices, err))
                    return false;
                memset(b->indices, 0, (size_t)b->width);
            }
            x += (int)dx;
            continue;
        }
        // A literal run of `value` indices, its bytes padded to a multiple of two (pixels past the row dropped).
        size_t bytes = four ? (value + 1) / 2 : value;
        if (p + bytes > b->size)
            return lsFail(err, "%s: the RLE data ends inside a literal at pixel (%d, %d)", b->label, x,
                          RowFromTop(b, r));
        for (unsigned i = 0; i < value && x < b->width; ++i)
            b->indices[x++] = (uint8_t)(!four ? d[p + i] : (i & 1u) == 0 ? d[p + i / 2] >> 4 : d[p + i / 2] & 15u);
        p += bytes + (bytes & 1u);
    }
    return true;
}

bool lsDecodeBmp(const unsigned char* data, size_t size, const char* label, const lsBmpSink* sink, lsError* err)
{
    if (!lsIsBmp(data, size))
        return lsFail(err, "%s: not a bitmap (no \"BM\" at its start)", label);
    Bmp b;
    memset(&b, 0, sizeof b);
    b.data = data, b.size = size, b.label = label, b.sink = sink;
    if (!ReadHeaders(&b, err) || !sink->begin(sink->context, b.width, b.height, b.hasAlpha, err))
        return false;
    size_t rgbaSize = 4 * sizeof(uint16_t) * (size_t)b.width;
    b.rgba = lsAlloc(rgbaSize);
    b.indices = lsAlloc((size_t)b.width);
    bool ok = b.compression == ls_bmpRle8 || b.compression == ls_bmpRle4 ? DecodeRle(&b, err) : DecodeRows(&b, err);
    lsFree(b.indices, (size_t)b.width);
    lsFree(b.rgba, rgbaSize);
    return ok;
}
