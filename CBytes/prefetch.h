// How far ahead the body loops ask for the input they will read next.
//
// A body reaches the consumer thread written by the engine thread on the other core and often
// queued behind slower transfers, so it is rarely in this core's cache; the hardware streamer
// restarts at each 4 KB page, and the loads stalled on memory for over half of the escaper's and a
// quarter of the validator's time. Asking for the line 2 KB ahead keeps the next pages coming.
#ifndef CBYTES_PREFETCH_H
#define CBYTES_PREFETCH_H

/// Bytes between the block being read and the one asked for (a prefetch never faults, so it may
/// point past the end).
#define CBYTES_PREFETCH_AHEAD 2048

#define cbytes_prefetch(p) __builtin_prefetch((const char *)(p) + CBYTES_PREFETCH_AHEAD)

#endif
