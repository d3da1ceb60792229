// Whole chunks of the appended series, compressed off the simulation's thread and written with HDF5's direct
// chunk write. The serial HDF5 that Debian ships is not thread-safe, so only the compression runs on the
// worker; every HDF5 call stays on the thread that owns the file, and chunks are written in the order they
// were queued. A chunk leaves here as HDF5's own filter pipeline would leave it (the byte shuffle when the
// dataset has one, then zlib-format deflate), so every reader decodes it with the standard filters;
// libdeflate makes that format in about 60 % of zlib's time on the node series (docs/development.md).
#pragma once

#include <H5Cpp.h>

#include <array>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

struct libdeflate_compressor;

namespace fleetwatt::results {

class ChunkCompressor {
 public:
  /// `threaded`: compress on a worker thread of its own (false: on the caller's, as each chunk is queued).
  explicit ChunkCompressor(bool threaded = true);
  /// Stops the worker; chunks still queued are dropped unwritten (a file given up or not committed).
  ~ChunkCompressor();
  ChunkCompressor(const ChunkCompressor&) = delete;
  ChunkCompressor& operator=(const ChunkCompressor&) = delete;

  /// A buffer of `bytes` for one chunk's values, reused from chunks already written.
  std::vector<unsigned char> buffer(std::size_t bytes);
  /// Queues one whole chunk of `dataset`: its values in HDF5's order (row-major, padded to the full chunk
  /// shape at the dataset's edge), `offset` its first element (one entry per dimension), `shuffle_bytes` the
  /// element size the dataset's shuffle filter works with (0: the dataset has no shuffle). The dataset's
  /// extent must already cover the chunk, and the dataset must stay open until finish() or drop().
  void submit(hid_t dataset, std::array<hsize_t, 2> offset, std::vector<unsigned char> values,
              std::size_t shuffle_bytes);
  /// Writes the chunks compressed so far, in the order they were queued (HDF5's errors thrown as
  /// H5::Exception).
  void write_ready();
  /// Waits for every queued chunk and writes it.
  void finish();
  /// Forgets every queued chunk without writing it.
  void drop();

 private:
  enum class State { queued, compressing, done };
  struct Chunk {
    hid_t dataset = H5I_INVALID_HID;
    std::array<hsize_t, 2> offset{};
    std::vector<unsigned char> values, packed;
    std::size_t shuffle_bytes = 0, packed_bytes = 0;
    State state = State::queued;
  };
  /// At most this many chunks (about 0.5 MB each) wait or are being compressed: memory stays flat when the
  /// simulation outruns the compression.
  static constexpr std::size_t kMaxQueued = 8;

  void compress(Chunk& c);  // on the worker, or the caller without one
  void write(Chunk& c);     // on the file's thread
  void work();

  libdeflate_compressor* deflate_ = nullptr;
  std::vector<unsigned char> shuffled_;  // the compressing thread's scratch
  std::mutex mutex_;
  std::condition_variable queued_, compressed_;
  std::deque<Chunk> chunks_;
  // Buffers of chunks written, kept for the next ones (values and compressed apart, so each keeps its size
  // and is not cleared again).
  std::vector<std::vector<unsigned char>> spare_values_, spare_packed_;
  std::exception_ptr failure_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace fleetwatt::results
