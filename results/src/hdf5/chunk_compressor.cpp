// Compression of whole chunks on a worker thread and their direct write on the file's thread (see
// chunk_compressor.hpp).
#include "chunk_compressor.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <iterator>
#include <new>
#include <stdexcept>

namespace fleetwatt::results {

namespace {
/// libdeflate's level 1: its fastest, and on the node series both faster and smaller than zlib's level 1
/// (the level HDF5's own deflate filter was given).
constexpr int kDeflateLevel = 1;
}  // namespace

ChunkCompressor::ChunkCompressor(bool threaded) : deflate_(libdeflate_alloc_compressor(kDeflateLevel)) {
  if (!deflate_) throw std::bad_alloc();
  if (threaded) worker_ = std::thread([this] { work(); });
}

ChunkCompressor::~ChunkCompressor() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  queued_.notify_all();
  if (worker_.joinable()) worker_.join();
  libdeflate_free_compressor(deflate_);
}

std::vector<unsigned char> ChunkCompressor::buffer(std::size_t bytes) {
  // A spare of the same size first: datasets of several chunk sizes share the spares, and growing one
  // that was shrunk would clear its new bytes again.
  auto spare = std::find_if(spare_values_.rbegin(), spare_values_.rend(),
                            [bytes](const auto& v) { return v.size() == bytes; });
  if (spare == spare_values_.rend() && !spare_values_.empty()) spare = spare_values_.rbegin();
  std::vector<unsigned char> b;
  if (spare != spare_values_.rend()) {
    b = std::move(*spare);
    spare_values_.erase(std::next(spare).base());
  }
  b.resize(bytes);
  return b;
}

void ChunkCompressor::submit(hid_t dataset, std::array<hsize_t, 2> offset, std::vector<unsigned char> values,
                             std::size_t shuffle_bytes) {
  Chunk c;
  c.dataset = dataset;
  c.offset = offset;
  c.values = std::move(values);
  if (!spare_packed_.empty()) {
    c.packed = std::move(spare_packed_.back());
    spare_packed_.pop_back();
  }
  c.shuffle_bytes = shuffle_bytes;
  if (!worker_.joinable()) {
    compress(c);
    write(c);
    return;
  }
  write_ready();
  std::unique_lock lock(mutex_);
  // Full: wait for the oldest chunk and write it (outside the lock) before queueing another.
  while (chunks_.size() >= kMaxQueued) {
    compressed_.wait(lock, [this] { return chunks_.front().state == State::done || failure_; });
    if (failure_) std::rethrow_exception(failure_);
    Chunk done = std::move(chunks_.front());
    chunks_.pop_front();
    lock.unlock();
    write(done);
    lock.lock();
  }
  chunks_.push_back(std::move(c));
  lock.unlock();
  queued_.notify_one();
}

void ChunkCompressor::write_ready() {
  for (;;) {
    std::unique_lock lock(mutex_);
    if (failure_) std::rethrow_exception(failure_);
    if (chunks_.empty() || chunks_.front().state != State::done) return;
    Chunk done = std::move(chunks_.front());
    chunks_.pop_front();
    lock.unlock();
    write(done);
  }
}

void ChunkCompressor::finish() {
  for (;;) {
    std::unique_lock lock(mutex_);
    if (chunks_.empty()) return;
    compressed_.wait(lock, [this] { return chunks_.front().state == State::done || failure_; });
    if (failure_) std::rethrow_exception(failure_);
    Chunk done = std::move(chunks_.front());
    chunks_.pop_front();
    lock.unlock();
    write(done);
  }
}

void ChunkCompressor::drop() {
  std::unique_lock lock(mutex_);
  // The chunk being compressed belongs to the worker until it is done.
  compressed_.wait(lock, [this] {
    return std::none_of(chunks_.begin(), chunks_.end(),
                        [](const Chunk& c) { return c.state == State::compressing; });
  });
  chunks_.clear();
}

void ChunkCompressor::compress(Chunk& c) {
  const unsigned char* in = c.values.data();
  const std::size_t n = c.values.size();
  if (c.shuffle_bytes > 1) {
    // HDF5's shuffle: byte k of every element, then byte k + 1 of every element, ...
    const std::size_t size = c.shuffle_bytes, elements = n / size;
    shuffled_.resize(n);
    for (std::size_t k = 0; k < size; ++k) {
      unsigned char* out = shuffled_.data() + k * elements;
      for (std::size_t e = 0; e < elements; ++e) out[e] = in[e * size + k];
    }
    std::copy(in + elements * size, in + n, shuffled_.data() + elements * size);  // a tail HDF5 leaves as is
    in = shuffled_.data();
  }
  // Never shrunk: a spare that held a larger chunk's output is not cleared again when it grows back.
  const std::size_t bound = libdeflate_zlib_compress_bound(deflate_, n);
  if (c.packed.size() < bound) c.packed.resize(bound);
  c.packed_bytes = libdeflate_zlib_compress(deflate_, in, n, c.packed.data(), c.packed.size());
  if (c.packed_bytes == 0) throw std::runtime_error("deflate: a chunk did not fit its bound");
}

void ChunkCompressor::write(Chunk& c) {
  // Filter mask 0: every filter of the dataset's pipeline was applied.
  if (H5Dwrite_chunk(c.dataset, H5P_DEFAULT, 0, c.offset.data(), c.packed_bytes, c.packed.data()) < 0)
    throw H5::DataSetIException("H5Dwrite_chunk", "cannot write a compressed chunk");
  spare_values_.push_back(std::move(c.values));
  spare_packed_.push_back(std::move(c.packed));
}

void ChunkCompressor::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    queued_.wait(lock, [this] {
      return stop_ || std::any_of(chunks_.begin(), chunks_.end(),
                                  [](const Chunk& c) { return c.state == State::queued; });
    });
    if (stop_) return;
    Chunk& c = *std::find_if(chunks_.begin(), chunks_.end(),
                             [](const Chunk& k) { return k.state == State::queued; });
    c.state = State::compressing;
    lock.unlock();
    // A deque keeps its elements in place while others are added at the back or taken from the front, and
    // the file's thread takes only finished chunks: `c` stays this thread's until it is done.
    std::exception_ptr failed;
    try {
      compress(c);
    } catch (...) {
      failed = std::current_exception();
    }
    lock.lock();
    c.state = State::done;
    if (failed && !failure_) failure_ = failed;
    compressed_.notify_all();
  }
}

}  // namespace fleetwatt::results
