#ifndef CDEFLATE_SHIM_H
#define CDEFLATE_SHIM_H
// libdeflate: whole-buffer DEFLATE and gzip, without zlib's stream state. A WARC record is one
// gzip member compressed at once, so none of that state is needed, and for records of a few
// kilobytes libdeflate takes about half zlib's time at the same level.
#include <libdeflate.h>
#endif
