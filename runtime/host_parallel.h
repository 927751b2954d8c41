#pragma once
// Host loops over all elements of a tensor, split into fixed-size chunks that
// std::threads take in turn. The chunking depends only on the element count, so
// per-chunk results merged in chunk order do not depend on the thread count.
#include <cstdint>
#include <functional>

namespace cusched::runtime {

// Elements per chunk of the loops below.
constexpr int64_t kHostChunkElements = int64_t{1} << 20;

// The number of chunks of `chunk` elements that cover `elements` (0 for none).
int64_t host_chunk_count(int64_t elements, int64_t chunk = kHostChunkElements);

// Calls body(chunk_index, begin, end) once for every chunk of [0, elements),
// on up to hardware_concurrency threads (the calling thread alone for one chunk).
// An exception thrown by a body is rethrown here after every thread has joined.
void for_each_host_chunk(int64_t elements, const std::function<void(int64_t, int64_t, int64_t)>& body,
                         int64_t chunk = kHostChunkElements);

}  // namespace cusched::runtime
