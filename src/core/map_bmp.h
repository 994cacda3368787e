// lidarsim core (private): Windows bitmaps for maps (map_bmp.c); map.c classifies their pixels as it does PNG's and
// PNM's.
#pragma once

#include "lidarsim/base.h"

#include <stddef.h>
#include <stdint.h>

/// Where a BMP's decoded pixels go.
typedef struct lsBmpSink
{
    void* context;
    /// Called once, before any row, with the image's size and whether its pixels carry alpha; false (err filled)
    /// stops the decoding (the size limit is checked here, before anything the size depends on is allocated).
    bool (*begin)(void* context, int width, int height, bool hasAlpha, lsError* err);
    /// One row, y counted from the image's top: width pixels of red, green, blue and alpha as 16-bit quanta (alpha
    /// 65535 when the file has none). Rows come in the file's order: bottom-up files give the bottom row first.
    void (*row)(void* context, int y, const uint16_t* rgba);
} lsBmpSink;

/// True when data starts as a Windows bitmap file does ("BM").
bool lsIsBmp(const unsigned char* data, size_t size);

/// Decodes a Windows or OS/2 bitmap from memory into sink, pixel for pixel as GraphicsMagick 1.3.40 (map_server's
/// reader on Debian 12) does: the core, 40-byte, V2 to V5 and OS/2 2.x info headers; 1, 4 and 8 bits through the
/// palette, 16 and 32 bits by their masks, 24 bits; RLE8, RLE4, bit fields (and alpha bit fields, which
/// GraphicsMagick refuses); bottom-up and top-down rows. Uncompressed 16-bit pixels are 5-5-5, 32-bit ones 8-8-8
/// with the fourth byte as alpha; a channel is widened by its bits put at the top of 16, an 8-bit one repeated
/// (v * 257), a narrower one not (5-bit 31 is 0xF800); an image has alpha when it gives an alpha mask or is
/// uncompressed 32-bit. JPEG or PNG inside a bitmap, OS/2 Huffman and RLE24 are refused by name. A file cut short,
/// a palette index beyond the palette, a palette larger than its bits allow or an RLE jump out of the image fails
/// with the place it happened (label: "... at pixel (x, y)" counted from the image's top left, or the byte offset);
/// what an RLE file skips takes palette entry 0, and what its runs put past a row's end (into the padding, as
/// ImageMagick's encoder does) is dropped. Every read is bounds-checked against size.
bool lsDecodeBmp(const unsigned char* data, size_t size, const char* label, const lsBmpSink* sink, lsError* err);
