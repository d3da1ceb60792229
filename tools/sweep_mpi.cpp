// Sweep members over MPI ranks (built when Open MPI is found). Rank 0 hands out member indices in order to
// whichever rank asks, and runs members itself between answers: a second thread of rank 0 does all of its
// MPI calls (MPI_THREAD_SERIALIZED), polling with a short sleep so that it does not take a core from the
// simulation beside it. Each member is a whole, independent simulation written to its own file; only indices
// and outcomes travel.
#include <mpi.h>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <thread>

#include "fleetwatt/sim/engine/engine.hpp"
#include "sweep_distribute.hpp"

namespace fleetwatt::tools {

namespace {

constexpr int kTagReport = 1;  // worker -> 0: the outcome of its last member (empty at first), a request
constexpr int kTagAssign = 2;  // 0 -> worker: the next member index, or -1: no more
constexpr const char* kInterrupted = "interrupted";

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string encode(const MemberOutcome& o) {
  return fmt::format("{}\t{}\t{}\t{:.17g}\t{}", o.index, o.status, o.rank, o.wall_s, one_line(o.error));
}

MemberOutcome decode(const std::string& s) {
  MemberOutcome o;
  std::istringstream in(s);
  std::string field;
  std::getline(in, field, '\t');
  o.index = std::stoull(field);
  std::getline(in, o.status, '\t');
  std::getline(in, field, '\t');
  o.rank = std::stoi(field);
  std::getline(in, field, '\t');
  o.wall_s = std::stod(field);
  std::getline(in, o.error);
  return o;
}

// Rank 0's answering loop: until every other rank has been told there is no more work.
void answer_ranks(int ranks, const std::function<std::int64_t()>& take,
                  const std::function<void(const MemberOutcome&)>& record, std::atomic<bool>& stop) {
  int active = ranks - 1;
  std::string buf;
  while (active > 0) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagReport, MPI_COMM_WORLD, &flag, &st);
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    buf.assign(static_cast<std::size_t>(n), '\0');
    MPI_Recv(buf.data(), n, MPI_CHAR, st.MPI_SOURCE, kTagReport, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (buf == kInterrupted) {
      // That rank stopped (Ctrl-C): it asks for nothing more, and nobody starts another member.
      stop = true;
      --active;
      continue;
    }
    if (!buf.empty()) record(decode(buf));
    std::int64_t next = take();
    MPI_Send(&next, 1, MPI_INT64_T, st.MPI_SOURCE, kTagAssign, MPI_COMM_WORLD);
    if (next < 0) --active;
  }
}

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  threads_ = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(MPI_COMM_WORLD, &place_.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &place_.ranks);
}

MpiSession::~MpiSession() {
  MPI_Finalize();
}

bool all_ranks(bool value) {
  int mine = value ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

bool run_members_over_mpi(const MpiSession& session, const std::vector<std::size_t>& todo,
                          const RunMember& run, const RecordOutcome& record) {
  const MpiPlace place = session.place();
  if (place.rank != 0) {
    // Ask, run, report with the next request, until told there is no more.
    std::string report;
    while (true) {
      MPI_Send(report.data(), static_cast<int>(report.size()), MPI_CHAR, 0, kTagReport, MPI_COMM_WORLD);
      std::int64_t next = -1;
      MPI_Recv(&next, 1, MPI_INT64_T, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (next < 0) return true;
      try {
        report = encode(run(static_cast<std::size_t>(next), place.rank));
      } catch (const sim::Interrupted&) {
        MPI_Send(kInterrupted, static_cast<int>(std::char_traits<char>::length(kInterrupted)), MPI_CHAR, 0,
                 kTagReport, MPI_COMM_WORLD);
        return false;
      }
    }
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex record_mutex;
  // Members are handed out in order, to rank 0 itself as to the others.
  auto take = [&]() -> std::int64_t {
    if (stop) return -1;
    const std::size_t k = next.fetch_add(1);
    return k < todo.size() ? static_cast<std::int64_t>(todo[k]) : -1;
  };
  auto locked_record = [&](const MemberOutcome& o) {
    std::lock_guard<std::mutex> lock(record_mutex);
    record(o);
  };
  if (place.ranks == 1 || !session.threads()) {
    // One rank: it runs everything; without thread support rank 0 only answers.
    if (place.ranks == 1) {
      try {
        for (std::int64_t k; (k = take()) >= 0;) locked_record(run(static_cast<std::size_t>(k), 0));
      } catch (const sim::Interrupted&) {
        return false;
      }
      return true;
    }
    answer_ranks(place.ranks, take, locked_record, stop);
    return !stop;
  }
  std::thread answering([&] { answer_ranks(place.ranks, take, locked_record, stop); });
  bool interrupted = false;
  try {
    for (std::int64_t k; (k = take()) >= 0;) locked_record(run(static_cast<std::size_t>(k), 0));
  } catch (const sim::Interrupted&) {
    stop = true;
    interrupted = true;
  }
  answering.join();
  return !interrupted && !stop;
}

}  // namespace fleetwatt::tools
