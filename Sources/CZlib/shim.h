// zlib for Swift (Debian: zlib1g-dev): gzip bodies for the KARTE track API (the plugin compresses its
// requests and reads gzip answers; the simulator reads gzip requests with its own code on the same library).
// deflateInit2/inflateInit2 are macros, so they are wrapped here.
#ifndef ATTENDANT_CZLIB_SHIM_H
#define ATTENDANT_CZLIB_SHIM_H

#include <zlib.h>

/// A deflate stream that writes the gzip format (window bits 15 + 16), at `level`.
static inline int attendant_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/// An inflate stream that reads only the gzip format (window bits 15 + 16).
static inline int attendant_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}

#endif
