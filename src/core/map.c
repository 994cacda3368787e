// lidarsim core: reading map_server maps (see map.h): the YAML through libyaml, PNG through libpng and the PNM
// family (PGM P5/P2 8- and 16-bit, PBM, PPM) through libnetpbm, every pixel classified as map_server does.
#define _POSIX_C_SOURCE 200809L

#include "lidarsim/map.h"

#include "core/alloc.h"
#include "core/limits.h"
#include "core/map_bmp.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

// netpbm's headers declare functions with non-prototype parameter lists under some feature macros; they are
// system headers for our purposes.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <netpbm/pnm.h>
#pragma GCC diagnostic pop

bool lsIsMapPath(const char* path)
{
    size_t n = path != NULL ? strlen(path) : 0;
    return (n > 5 && strcmp(path + n - 5, ".yaml") == 0) || (n > 4 && strcmp(path + n - 4, ".yml") == 0);
}

void lsFreeGrid(lsGrid* grid)
{
    if (grid == NULL)
        return;
    lsFree(grid->cells, (size_t)grid->width * (size_t)grid->height);
    memset(grid, 0, sizeof *grid);
}

// ---------------------------------------------------------------------------------------------------------------------
// The YAML

// Reports at a node's place: "maps/a.yaml:3:7: resolution: ..." (libyaml marks are 0-based).
static bool FailAt(lsError* err, const char* label, const yaml_node_t* node, const char* key, const char* format, ...)
    __attribute__((format(printf, 5, 6)));
static bool FailAt(lsError* err, const char* label, const yaml_node_t* node, const char* key, const char* format, ...)
{
    char message[384];
    va_list args;
    va_start(args, format);
    // clang-tidy 14's va_list checker keeps state from the file analysed before this one (fuzz/map_check.c then
    // this file reports it; this file alone does not): va_start is right above.
    vsnprintf(message, sizeof message, format, args); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(args);
    if (node == NULL)
        return lsFail(err, "%s: %s%s%s", label, key != NULL ? key : "", key != NULL ? ": " : "", message);
    return lsFail(err, "%s:%d:%d: %s%s%s", label, (int)node->start_mark.line + 1, (int)node->start_mark.column + 1,
                  key != NULL ? key : "", key != NULL ? ": " : "", message);
}

static const char* Scalar(const yaml_node_t* node)
{
    return node != NULL && node->type == YAML_SCALAR_NODE ? (const char*)node->data.scalar.value : NULL;
}

static bool ScalarNumber(const yaml_node_t* node, double* out)
{
    const char* text = Scalar(node);
    return text != NULL && lsParseNumber(text, out);
}

// negate: yaml-cpp reads it as an int first, then as a bool (map_io's fallback).
static bool ScalarNegate(const yaml_node_t* node, bool* out)
{
    const char* text = Scalar(node);
    if (text == NULL)
        return false;
    long long v;
    if (lsParseInteger(text, -2147483647LL - 1, 2147483647LL, &v))
    {
        *out = v != 0;
        return true;
    }
    static const char* const truths[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"};
    static const char* const lies[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"};
    for (size_t i = 0; i < sizeof truths / sizeof truths[0]; ++i)
    {
        if (strcmp(text, truths[i]) == 0 || strcmp(text, lies[i]) == 0)
        {
            *out = strcmp(text, truths[i]) == 0;
            return true;
        }
    }
    return false;
}

// The image path: absolute as given, otherwise relative to the YAML's folder (map_io's dirname rule).
static bool ResolveImage(const char* yamlPath, const char* image, char* out, size_t capacity)
{
    const char* slash = strrchr(yamlPath, '/');
    int n;
    if (image[0] == '/')
        n = snprintf(out, capacity, "%s", image);
    else if (slash == NULL)
        n = snprintf(out, capacity, "./%s", image);
    else
        n = snprintf(out, capacity, "%.*s/%s", (int)(slash == yamlPath ? 1 : slash - yamlPath), yamlPath, image);
    return n > 0 && (size_t)n < capacity;
}

static bool ReadMapKeys(yaml_document_t* doc, const yaml_node_t* root, const char* label, const char* yamlPath,
                        lsMapInfo* info, lsError* err)
{
    static const char* const keys[] = {"image", "resolution",      "origin",      "negate",
                                       "mode",  "occupied_thresh", "free_thresh", NULL};
    const yaml_node_t* found[7] = {NULL};
    for (yaml_node_pair_t* pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; ++pair)
    {
        const yaml_node_t* key = yaml_document_get_node(doc, pair->key);
        const yaml_node_t* value = yaml_document_get_node(doc, pair->value);
        const char* name = Scalar(key);
        if (name == NULL)
            return FailAt(err, label, key, NULL, "expected a key (a plain word such as 'resolution')");
        for (int k = 0; keys[k] != NULL; ++k)
        {
            if (strcmp(name, keys[k]) == 0)
            {
                if (found[k] != NULL)
                    return FailAt(err, label, key, name, "given twice");
                found[k] = value;
            }
        }
        // Other keys (elevation_image, comments turned keys, ...) are ignored, as map_server ignores them.
    }
    for (int k = 0; k < 7; ++k)
    {
        bool optional = k == 3 || k == 4; // negate defaults to 0 in practice; mode to trinary
        if (found[k] == NULL && !optional)
            return FailAt(err, label, NULL, keys[k],
                          "missing (a map YAML needs image, resolution, origin, "
                          "occupied_thresh and free_thresh)");
    }

    const char* image = Scalar(found[0]);
    if (image == NULL || image[0] == '\0')
        return FailAt(err, label, found[0], "image", "expected the image file name");
    if (!ResolveImage(yamlPath, image, info->image, sizeof info->image))
        return FailAt(err, label, found[0], "image", "path too long");
    info->imageLine = (int)found[0]->start_mark.line + 1, info->imageColumn = (int)found[0]->start_mark.column + 1;

    char bound[96];
    if (!ScalarNumber(found[1], &info->resolution) || !lsLimit_Holds(ls_quantityResolution, info->resolution))
        return FailAt(err, label, found[1], "resolution", "expected %s",
                      lsLimit_Describe(ls_quantityResolution, bound, sizeof bound));

    const yaml_node_t* origin = found[2];
    int originCount = origin->type == YAML_SEQUENCE_NODE
                          ? (int)(origin->data.sequence.items.top - origin->data.sequence.items.start)
                          : -1;
    if (originCount != 3)
        return FailAt(err, label, origin, "origin", "expected [x, y, yaw], three numbers");
    double o[3];
    for (int i = 0; i < 3; ++i)
    {
        const yaml_node_t* item = yaml_document_get_node(doc, origin->data.sequence.items.start[i]);
        // x and y are world coordinates, bounded as a world file's (the whole map's extent is checked once the
        // image's size is known, lsDecodeMapImage); the yaw is radians, bounded as a world's angles in degrees.
        bool position = i < 2;
        bool ok = ScalarNumber(item, &o[i]) && (position ? lsLimit_Holds(ls_quantityCoordinate, o[i])
                                                         : lsLimit_Holds(ls_quantityAngle, o[i] * (180.0 / LS_PI)));
        if (!ok && position)
            return FailAt(err, label, item, "origin", "expected x and y each %s",
                          lsLimit_Describe(ls_quantityCoordinate, bound, sizeof bound));
        if (!ok)
            return FailAt(err, label, item, "origin", "expected a yaw in radians, %s (as degrees)",
                          lsLimit_Describe(ls_quantityAngle, bound, sizeof bound));
    }
    info->origin = lsV(o[0], o[1]);
    info->yaw = o[2];

    info->negate = false;
    if (found[3] != NULL && !ScalarNegate(found[3], &info->negate))
        return FailAt(err, label, found[3], "negate", "expected an integer (non-zero: set) or a boolean (true, false)");

    info->mode = ls_mapTrinary;
    if (found[4] != NULL)
    {
        // map_server lowercases the name before comparing (map_mode_from_string), so "Trinary" and "RAW" load.
        const char* mode = Scalar(found[4]);
        if (mode != NULL && strcasecmp(mode, "trinary") == 0)
            info->mode = ls_mapTrinary;
        else if (mode != NULL && strcasecmp(mode, "scale") == 0)
            info->mode = ls_mapScale;
        else if (mode != NULL && strcasecmp(mode, "raw") == 0)
            info->mode = ls_mapRaw;
        else
            return FailAt(err, label, found[4], "mode", "unknown mode '%s' (expected trinary, scale or raw)",
                          mode != NULL ? mode : "(not a word)");
    }

    if (!ScalarNumber(found[5], &info->occupiedThresh) || info->occupiedThresh < 0.0 || info->occupiedThresh > 1.0)
        return FailAt(err, label, found[5], "occupied_thresh", "expected a number in [0, 1]");
    if (!ScalarNumber(found[6], &info->freeThresh) || info->freeThresh < 0.0 || info->freeThresh > 1.0)
        return FailAt(err, label, found[6], "free_thresh", "expected a number in [0, 1]");
    if (!(info->freeThresh < info->occupiedThresh))
        return FailAt(err, label, found[6], "free_thresh", "%g must be below occupied_thresh (%g)", info->freeThresh,
                      info->occupiedThresh);
    return true;
}

// A map YAML is a flat mapping (depth 2 with the origin's list). libyaml has no nesting limit and its scanner
// slows quadratically with the depth of flow collections ("[[[[...", 100 000 deep: minutes), so the events are
// read once first and the text is refused as soon as it nests deeper than this.
#define LS_MAP_MAX_YAML_DEPTH 64

static bool CheckYamlDepth(const char* text, size_t size, const char* label, lsError* err)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return lsFail(err, "%s: cannot start the YAML parser", label);
    yaml_parser_set_input_string(&parser, (const unsigned char*)text, size);
    int depth = 0;
    bool ok = true, done = false;
    while (ok && !done)
    {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event))
            break; // a syntax error: yaml_parser_load reports it with its place
        if (event.type == YAML_SEQUENCE_START_EVENT || event.type == YAML_MAPPING_START_EVENT)
            depth += 1;
        else if (event.type == YAML_SEQUENCE_END_EVENT || event.type == YAML_MAPPING_END_EVENT)
            depth -= 1;
        done = event.type == YAML_STREAM_END_EVENT;
        if (depth > LS_MAP_MAX_YAML_DEPTH)
            ok = lsFail(err, "%s:%d:%d: nested deeper than %d levels (a map YAML is a flat mapping)", label,
                        (int)event.start_mark.line + 1, (int)event.start_mark.column + 1, LS_MAP_MAX_YAML_DEPTH);
        yaml_event_delete(&event);
    }
    yaml_parser_delete(&parser);
    return ok;
}

bool lsParseMapYaml(const char* text, size_t size, const char* yamlPath, lsMapInfo* info, lsError* err)
{
    if (info == NULL || yamlPath == NULL || (text == NULL && size > 0))
        return lsFail(err, "%s: no %s given", yamlPath != NULL ? yamlPath : "<map>",
                      info == NULL       ? "map info to fill"
                      : yamlPath == NULL ? "map file name"
                                         : "text");
    memset(info, 0, sizeof *info);
    const char* label = yamlPath;
    if (size > LS_MAP_MAX_YAML_BYTES)
        return lsFail(err, "%s: %zu bytes, over the limit of %zu bytes for a map YAML", label, size,
                      LS_MAP_MAX_YAML_BYTES);
    if (memchr(text, '\0', size) != NULL)
        return lsFail(err, "%s: a NUL byte (not a YAML text file?)", label);
    if (!CheckYamlDepth(text, size, label, err))
        return false;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return lsFail(err, "%s: cannot start the YAML parser", label);
    yaml_parser_set_input_string(&parser, (const unsigned char*)text, size);
    yaml_document_t doc;
    if (!yaml_parser_load(&parser, &doc))
    {
        bool ok = lsFail(err, "%s:%d:%d: YAML syntax error: %s%s%s", label, (int)parser.problem_mark.line + 1,
                         (int)parser.problem_mark.column + 1, parser.problem != NULL ? parser.problem : "unknown",
                         parser.context != NULL ? " " : "", parser.context != NULL ? parser.context : "");
        yaml_parser_delete(&parser);
        return ok;
    }
    yaml_parser_delete(&parser);
    bool ok;
    const yaml_node_t* root = yaml_document_get_root_node(&doc);
    if (root == NULL)
        ok = lsFail(err, "%s: empty (a map YAML needs image, resolution, origin, occupied_thresh and free_thresh)",
                    label);
    else if (root->type != YAML_MAPPING_NODE)
        ok = FailAt(err, label, root, NULL, "expected a mapping of keys (image: map.pgm, resolution: 0.05, ...)");
    else
        ok = ReadMapKeys(&doc, root, label, yamlPath, info, err);
    yaml_document_delete(&doc);
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------------
// Pixels to cells: map_io's arithmetic on GraphicsMagick's 16-bit quanta (Nav2 is built on the Q16 build), so a
// shade exactly at a threshold falls on the same side as in map_server.

#define LS_QUANTUM_MAX 65535.0

typedef struct Classifier
{
    const lsMapInfo* info;
    bool hasAlpha;
} Classifier;

// Occupancy value in map_server's convention: -1 unknown, 0..100.
static int MapValue(const Classifier* c, const unsigned* q, int colourChannels, unsigned alpha)
{
    // Grey images have red = green = blue = grey in GraphicsMagick: the mean of three equal channels.
    double sum = colourChannels == 1 ? 3.0 * q[0] : (double)q[0] + q[1] + q[2];
    double n = 3.0;
    if (c->info->mode == ls_mapTrinary && c->hasAlpha)
    {
        sum += alpha;
        n = 4.0;
    }
    double shade = (sum / n) / LS_QUANTUM_MAX;
    double occ = c->info->negate ? shade : 1.0 - shade;
    switch (c->info->mode)
    {
    case ls_mapTrinary:
        if (c->info->occupiedThresh < occ)
            return 100;
        return occ < c->info->freeThresh ? 0 : -1;
    case ls_mapScale:
        if (c->hasAlpha && alpha != 65535u)
            return -1;
        if (c->info->occupiedThresh < occ)
            return 100;
        if (occ < c->info->freeThresh)
            return 0;
        return (int)rint((occ - c->info->freeThresh) / (c->info->occupiedThresh - c->info->freeThresh) * 100.0);
    default:
    {
        double value = round(shade * 255.0);
        return value >= 0.0 && value <= 100.0 ? (int)value : -1;
    }
    }
}

// A sample of maxval scaled to a 16-bit quantum as GraphicsMagick does (exact for 8 and 16 bits).
static unsigned ToQuantum(unsigned v, unsigned maxval)
{
    if (maxval == 65535u)
        return v;
    if (maxval == 255u)
        return v * 257u;
    return (unsigned)(LS_QUANTUM_MAX * v / maxval + 0.5);
}

static uint8_t CellOf(int value) { return value == 100 ? ls_cellWall : value < 0 ? ls_cellUnknown : ls_cellFree; }

// A grey image without alpha has at most maxval + 1 <= 65536 sample values: each is classified once, so the pixels
// of a big map cost a table look-up each. Free with lsFree(table, maxval + 1).
static uint8_t* MakeGreyTable(const Classifier* c, unsigned maxval)
{
    uint8_t* table = lsAlloc((size_t)maxval + 1);
    for (unsigned v = 0; v <= maxval; ++v)
    {
        unsigned q = ToQuantum(v, maxval);
        table[v] = CellOf(MapValue(c, &q, 1, 65535u));
    }
    return table;
}

static bool CheckSize(const char* label, long long width, long long height, lsError* err)
{
    if (width <= 0 || height <= 0)
        return lsFail(err, "%s: the image is empty (%lld x %lld pixels)", label, width, height);
    if (width > LS_MAP_MAX_PIXELS || height > LS_MAP_MAX_PIXELS || width * height > LS_MAP_MAX_PIXELS)
        return lsFail(err, "%s: %lld x %lld pixels, over the limit of %lld pixels", label, width, height,
                      LS_MAP_MAX_PIXELS);
    return true;
}

// Hands the classified cells (width * height bytes from lsAlloc) to the grid.
static void FinishGrid(lsGrid* grid, const lsMapInfo* info, int width, int height, uint8_t* cells)
{
    grid->width = width;
    grid->height = height;
    grid->cells = cells;
    grid->resolution = info->resolution;
    grid->origin = info->origin;
    grid->yaw = info->yaw;
}

// ---------------------------------------------------------------------------------------------------------------------
// PNG through libpng, from memory. Errors longjmp back to DecodePng; every buffer it owns is freed there.

typedef struct PngSource
{
    const unsigned char* data;
    size_t size, offset;
    char message[200];
} PngSource;

static void PngRead(png_structp png, png_bytep out, size_t count)
{
    PngSource* source = png_get_io_ptr(png);
    if (count > source->size - source->offset)
        png_error(png, "the file ends early (truncated?)");
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
}

static void PngError(png_structp png, png_const_charp message)
{
    PngSource* source = png_get_error_ptr(png);
    snprintf(source->message, sizeof source->message, "%s", message);
    png_longjmp(png, 1);
}

static void PngWarning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message; // ancillary-chunk complaints (bad sRGB profiles and the like) do not change the pixels
}

static void ClassifyPngRow(const Classifier* c, const uint8_t* grey, const png_byte* row, int width, int channels,
                           int depth, uint8_t* out)
{
    if (grey != NULL)
    {
        for (int x = 0; x < width; ++x)
            out[x] = grey[depth == 16 ? ((unsigned)row[2 * (size_t)x] << 8 | row[2 * (size_t)x + 1]) : row[x]];
        return;
    }
    LS_ASSERT(channels >= 1 && channels <= 4); // png_get_channels: grey, grey + alpha, RGB or RGBA
    int colour = channels >= 3 ? 3 : 1;
    unsigned q[4] = {0, 0, 0, 0};
    for (int x = 0; x < width; ++x)
    {
        for (int k = 0; k < channels; ++k)
        {
            size_t at = (size_t)x * channels + k;
            q[k] = depth == 16 ? ((unsigned)row[2 * at] << 8 | row[2 * at + 1]) : row[at] * 257u;
        }
        unsigned alpha = c->hasAlpha ? q[channels - 1] : 65535u;
        out[x] = CellOf(MapValue(c, q, colour, alpha));
    }
}

// libpng allocates through the library's allocator hook (its free gets no size: lsAllocSized keeps it).
static png_voidp PngAlloc(png_structp png, png_alloc_size_t size)
{
    (void)png;
    return lsAllocSized(size);
}

static void PngFree(png_structp png, png_voidp p)
{
    (void)png;
    lsFreeSized(p);
}

static bool DecodePng(const unsigned char* data, size_t size, const char* label, const lsMapInfo* info, lsGrid* grid,
                      lsError* err)
{
    PngSource source = {data, size, 0, {0}};
    png_structp png =
        png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &source, PngError, PngWarning, NULL, PngAlloc, PngFree);
    if (png == NULL)
        return lsFail(err, "%s: cannot start the PNG reader", label);
    png_infop pngInfo = png_create_info_struct(png);
    // Volatile: assigned after setjmp and read after the longjmp back.
    png_bytep volatile image = NULL;
    volatile size_t imageSize = 0;
    uint8_t* volatile cells = NULL;
    volatile size_t cellCount = 0;
    uint8_t* volatile grey = NULL;
    volatile size_t greySize = 0;
    if (pngInfo == NULL || setjmp(png_jmpbuf(png)))
    {
        lsFree(grey, greySize);
        lsFree(image, imageSize);
        lsFree(cells, cellCount);
        png_destroy_read_struct(&png, pngInfo != NULL ? &pngInfo : NULL, NULL);
        return lsFail(err, "%s: not a readable PNG: %s", label, source.message[0] ? source.message : "out of memory");
    }
    png_set_read_fn(png, &source, PngRead);
    // libpng's own guard against huge chunks (text, profiles) in hostile files.
    png_set_chunk_malloc_max(png, 8u << 20);
    png_read_info(png, pngInfo);
    png_uint_32 width = png_get_image_width(png, pngInfo);
    png_uint_32 height = png_get_image_height(png, pngInfo);
    if (!CheckSize(label, width, height, err))
    {
        png_destroy_read_struct(&png, &pngInfo, NULL);
        return false;
    }
    int colourType = png_get_color_type(png, pngInfo);
    int depth = png_get_bit_depth(png, pngInfo);
    Classifier c = {info, (colourType & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, pngInfo, PNG_INFO_tRNS)};
    // Palette to RGB, 1/2/4-bit grey to 8-bit, a tRNS chunk to an alpha channel: every pixel then has 1-4 samples.
    if (colourType == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (colourType == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, pngInfo, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, pngInfo);
    int channels = png_get_channels(png, pngInfo);
    depth = png_get_bit_depth(png, pngInfo);
    size_t rowBytes = png_get_rowbytes(png, pngInfo);
    if (channels == 1)
    {
        greySize = depth == 16 ? 65536 : 256;
        grey = MakeGreyTable(&c, (unsigned)greySize - 1);
    }
    cellCount = (size_t)width * height;
    cells = lsAlloc(cellCount);
    // Interlaced images need the whole image at once; the others go row by row (memory: one row).
    size_t rows = passes > 1 ? height : 1;
    imageSize = rowBytes * rows;
    image = lsAlloc(imageSize);
    if (passes > 1)
    {
        for (int pass = 0; pass < passes; ++pass)
            for (png_uint_32 y = 0; y < height; ++y)
                png_read_row(png, image + y * rowBytes, NULL);
        for (png_uint_32 y = 0; y < height; ++y)
            ClassifyPngRow(&c, grey, image + y * rowBytes, (int)width, channels, depth, cells + (size_t)y * width);
    }
    else
    {
        for (png_uint_32 y = 0; y < height; ++y)
        {
            png_read_row(png, image, NULL);
            ClassifyPngRow(&c, grey, image, (int)width, channels, depth, cells + (size_t)y * width);
        }
    }
    lsFree(image, imageSize);
    lsFree(grey, greySize);
    png_destroy_read_struct(&png, &pngInfo, NULL);
    FinishGrid(grid, info, (int)width, (int)height, cells);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------------
// PNM through libnetpbm. Its errors go through pm_error, which longjmps to the buffer we set (and would exit the
// program without one); the message reaches us through the user error function. Global state: not thread safe.

static char s_pnmMessage[200];

static void PnmErrorMessage(const char* message)
{
    snprintf(s_pnmMessage, sizeof s_pnmMessage, "%s", message);
    size_t n = strlen(s_pnmMessage);
    while (n > 0 && (s_pnmMessage[n - 1] == '\n' || s_pnmMessage[n - 1] == '.'))
        s_pnmMessage[--n] = '\0';
}

static void PnmMessage(const char* message) { (void)message; }

static bool DecodePnm(const unsigned char* data, size_t size, const char* label, const lsMapInfo* info, lsGrid* grid,
                      lsError* err)
{
    FILE* file = fmemopen((void*)data, size, "rb");
    if (file == NULL)
        return lsFail(err, "%s: cannot read: %s", label, strerror(errno));
    jmp_buf jump, *saved = NULL;
    xel* volatile row = NULL;
    volatile size_t rowSize = 0;
    uint8_t* volatile grey = NULL;
    volatile size_t greySize = 0;
    uint8_t* volatile cells = NULL;
    volatile size_t cellCount = 0;
    volatile int readingRow = -1, rowCount = 0; // the pixel row being read (-1: the header)
    s_pnmMessage[0] = '\0';
    pm_setusererrormsgfn(PnmErrorMessage);
    pm_setusermessagefn(PnmMessage);
    if (setjmp(jump) != 0)
    {
        pm_setjmpbuf(saved);
        fclose(file);
        lsFree(row, rowSize);
        lsFree(cells, cellCount);
        lsFree(grey, greySize);
        if (readingRow < 0)
            return lsFail(err, "%s: not a readable PNM image: %s", label, s_pnmMessage[0] ? s_pnmMessage : "bad data");
        // libnetpbm says "Error reading row. fread() errno=0 (Success)" or "Short read" when the data ends early.
        bool ended = strstr(s_pnmMessage, "errno=0") != NULL || strstr(s_pnmMessage, "EOF") != NULL ||
                     strstr(s_pnmMessage, "Short read") != NULL;
        return lsFail(err, "%s: not a readable PNM image: pixel row %d of %d (0 is the top): %s", label, readingRow,
                      rowCount, ended ? "the data ends before the last pixel (a truncated file?)" : s_pnmMessage);
    }
    pm_setjmpbufsave(&jump, &saved);
    int cols = 0, rows = 0, format = 0;
    xelval maxval = 0;
    pnm_readpnminit(file, &cols, &rows, &maxval, &format);
    if (!CheckSize(label, cols, rows, err))
    {
        pm_setjmpbuf(saved);
        fclose(file);
        return false;
    }
    Classifier c = {info, false};
    int colour = PNM_FORMAT_TYPE(format) == PPM_TYPE ? 3 : 1;
    rowSize = (size_t)cols * sizeof(xel);
    row = lsAlloc(rowSize);
    cellCount = (size_t)cols * (size_t)rows;
    cells = lsAlloc(cellCount);
    if (colour == 1)
    {
        greySize = (size_t)maxval + 1;
        grey = MakeGreyTable(&c, maxval);
    }
    rowCount = rows;
    for (int y = 0; y < rows; ++y)
    {
        readingRow = y;
        pnm_readpnmrow(file, row, cols, maxval, format);
        uint8_t* out = cells + (size_t)y * (size_t)cols;
        if (grey != NULL)
        {
            for (int x = 0; x < cols; ++x)
                out[x] = grey[PNM_GET1(row[x])];
            continue;
        }
        for (int x = 0; x < cols; ++x)
        {
            unsigned q[3];
            if (colour == 3)
            {
                q[0] = ToQuantum(PPM_GETR(row[x]), maxval);
                q[1] = ToQuantum(PPM_GETG(row[x]), maxval);
                q[2] = ToQuantum(PPM_GETB(row[x]), maxval);
            }
            else
            {
                q[0] = ToQuantum(PNM_GET1(row[x]), maxval);
            }
            out[x] = CellOf(MapValue(&c, q, colour, 65535u));
        }
    }
    pm_setjmpbuf(saved);
    fclose(file);
    lsFree(row, rowSize);
    lsFree(grey, greySize);
    FinishGrid(grid, info, cols, rows, cells);
    return true;
}

// libnetpbm reads a plain (ASCII) number up to the byte after it, and a file that ends right after its last number
// (editors and scripts often leave no final newline) fails with "EOF / read error". Such a file gets a copy with one
// newline appended, so every plain PNM that ends in a complete number reads.
static bool DecodePlainPnm(const unsigned char* data, size_t size, const char* label, const lsMapInfo* info,
                           lsGrid* grid, lsError* err)
{
    unsigned char* copy = lsAlloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\n';
    bool ok = DecodePnm(copy, size + 1, label, info, grid, err);
    lsFree(copy, size + 1);
    return ok;
}

// ---------------------------------------------------------------------------------------------------------------------
// BMP through map_bmp.c, each pixel classified from its quanta (a map's pixels come in long runs of one colour:
// the last one's cell is reused).

typedef struct BmpCells
{
    Classifier classifier;
    int width, height;
    uint8_t* cells;
    uint16_t last[4];
    uint8_t lastCell;
    const char* label;
} BmpCells;

static bool BmpBegin(void* context, int width, int height, bool hasAlpha, lsError* err)
{
    BmpCells* b = context;
    if (!CheckSize(b->label, width, height, err))
        return false;
    b->classifier.hasAlpha = hasAlpha;
    b->width = width, b->height = height;
    b->cells = lsAlloc((size_t)width * (size_t)height);
    unsigned black[3] = {0, 0, 0}; // the cache starts at (0, 0, 0, 0): its cell, should a pixel be that
    b->lastCell = CellOf(MapValue(&b->classifier, black, 3, 0));
    return true;
}

static void BmpRow(void* context, int y, const uint16_t* rgba)
{
    BmpCells* b = context;
    uint8_t* out = b->cells + (size_t)y * (size_t)b->width;
    for (int x = 0; x < b->width; ++x)
    {
        const uint16_t* p = rgba + 4 * (size_t)x;
        if (memcmp(p, b->last, sizeof b->last) != 0)
        {
            unsigned q[3] = {p[0], p[1], p[2]};
            memcpy(b->last, p, sizeof b->last);
            b->lastCell = CellOf(MapValue(&b->classifier, q, 3, p[3]));
        }
        out[x] = b->lastCell;
    }
}

static bool DecodeBmp(const unsigned char* data, size_t size, const char* label, const lsMapInfo* info, lsGrid* grid,
                      lsError* err)
{
    BmpCells cells = {{info, false}, 0, 0, NULL, {0, 0, 0, 0}, 0, label};
    lsBmpSink sink = {&cells, BmpBegin, BmpRow};
    if (!lsDecodeBmp(data, size, label, &sink, err))
    {
        lsFree(cells.cells, (size_t)cells.width * (size_t)cells.height);
        return false;
    }
    FinishGrid(grid, info, cells.width, cells.height, cells.cells);
    return true;
}

// The walls of a map lie on its pixel corners, origin + R(yaw) (u, v) resolution for u in [0, width] and v in
// [0, height]: every corner must be a coordinate a world file may give (a 0.05 m map of 100 M pixels at an origin
// of 999 990 m reached 1.00049e6; a resolution of 1e308 made every corner infinite).
bool lsGrid_CheckExtent(const lsGrid* grid, const char* label, lsError* err)
{
    double w = (double)grid->width * grid->resolution, h = (double)grid->height * grid->resolution;
    double c = cos(grid->yaw), s = sin(grid->yaw);
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    for (int k = 0; k < 4; ++k)
    {
        double u = (k & 1) != 0 ? w : 0.0, v = (k & 2) != 0 ? h : 0.0;
        double p[2] = {grid->origin.x + (c * u - s * v), grid->origin.y + (s * u + c * v)};
        for (int i = 0; i < 2; ++i)
        {
            lo[i] = p[i] < lo[i] ? p[i] : lo[i];
            hi[i] = p[i] > hi[i] ? p[i] : hi[i];
        }
    }
    for (int i = 0; i < 2; ++i)
    {
        if (!lsLimit_Holds(ls_quantityCoordinate, lo[i]) || !lsLimit_Holds(ls_quantityCoordinate, hi[i]))
        {
            char bound[96];
            return lsFail(
                err,
                "%s: %d x %d pixels of %g m from the origin (%.10g, %.10g) reach %c from %.10g to %.10g m; every "
                "corner must be %s",
                label, grid->width, grid->height, grid->resolution, grid->origin.x, grid->origin.y, i == 0 ? 'x' : 'y',
                lo[i], hi[i], lsLimit_Describe(ls_quantityCoordinate, bound, sizeof bound));
        }
    }
    return true;
}

static bool DecodeMapImage(const unsigned char* data, size_t size, const char* label, const lsMapInfo* info,
                           lsGrid* grid, lsError* err);

bool lsDecodeMapImage(const unsigned char* data, size_t size, const char* label, const lsMapInfo* info, lsGrid* grid,
                      lsError* err)
{
    if (!DecodeMapImage(data, size, label, info, grid, err))
        return false;
    if (!lsGrid_CheckExtent(grid, label, err))
    {
        lsFreeGrid(grid);
        return false;
    }
    return true;
}

static bool DecodeMapImage(const unsigned char* data, size_t size, const char* label, const lsMapInfo* info,
                           lsGrid* grid, lsError* err)
{
    if (info == NULL || grid == NULL || label == NULL || (data == NULL && size > 0))
        return lsFail(err, "%s: no %s given", label != NULL ? label : "<image>",
                      info == NULL    ? "map info"
                      : grid == NULL  ? "grid to fill"
                      : label == NULL ? "label"
                                      : "data");
    memset(grid, 0, sizeof *grid);
    if (size >= 8 && png_sig_cmp(data, 0, 8) == 0)
        return DecodePng(data, size, label, info, grid, err);
    if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '3' && data[size - 1] >= '0' &&
        data[size - 1] <= '9')
        return DecodePlainPnm(data, size, label, info, grid, err);
    if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6')
        return DecodePnm(data, size, label, info, grid, err);
    if (lsIsBmp(data, size))
        return DecodeBmp(data, size, label, info, grid, err);
    return lsFail(err, "%s: not an image lidarsim reads (expected PGM, PBM, PPM, PNG or BMP)", label);
}

// ---------------------------------------------------------------------------------------------------------------------
// Files

bool lsLoadMapGrid(const char* yamlPath, lsGrid* grid, lsMapInfo* info, lsError* err)
{
    if (yamlPath == NULL || grid == NULL)
        return lsFail(err, "%s", yamlPath == NULL ? "no map file name given" : "no grid given to fill");
    memset(grid, 0, sizeof *grid);
    lsMapInfo local;
    if (info == NULL)
        info = &local;
    size_t size = 0;
    char* text = lsReadFile(yamlPath, LS_MAP_MAX_YAML_BYTES, &size, err);
    if (text == NULL)
        return false;
    bool ok = lsParseMapYaml(text, size, yamlPath, info, err);
    lsFree(text, size + 1);
    if (!ok)
        return false;
    // The image's own errors name it (and a pixel where one is wrong), after the place the YAML names it.
    lsError imageErr;
    char* image = lsReadFile(info->image, LS_MAP_MAX_IMAGE_BYTES, &size, &imageErr);
    ok = image != NULL && lsDecodeMapImage((const unsigned char*)image, size, info->image, info, grid, &imageErr);
    lsFree(image, image != NULL ? size + 1 : 0);
    if (!ok)
        return lsFail(err, "%s:%d:%d: image: %s", yamlPath, info->imageLine, info->imageColumn, imageErr.message);
    return true;
}
