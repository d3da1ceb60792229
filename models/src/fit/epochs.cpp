// Epochs in a power log: stages by gaps and level shifts, a period per stage by autocorrelation, and the
// epochs of each stage by dynamic programming over the residual's strength (epochs.hpp).
#include "fleetwatt/models/fit/epochs.hpp"

#include "fleetwatt/core/median.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>

#include <unsupported/Eigen/FFT>

namespace fleetwatt::models::fit {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// The median of x[from, to).
double window_median(const double* x, std::size_t from, std::size_t to) {
  return core::median(std::vector<double>(x + from, x + to));
}

/// The running median of x over `w` samples centred on each (shorter at the ends).
std::vector<double> running_median(const double* x, std::size_t n, std::size_t w) {
  std::vector<double> out(n);
  const std::size_t h = w / 2;
  for (std::size_t i = 0; i < n; ++i) out[i] = window_median(x, i > h ? i - h : 0, std::min(n, i + h + 1));
  return out;
}

/// 1.4826 x the median absolute deviation: the noise's standard deviation for Gaussian noise; 1 when 0.
double noise_of(const std::vector<double>& r) {
  const double m = core::median(r);
  std::vector<double> v(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) v[i] = std::abs(r[i] - m);
  const double s = 1.4826 * core::median(std::move(v));
  return s > 0.0 ? s : 1.0;
}

class Finder {
 public:
  Finder(const GpuPowerSeries& s, const EpochOptions& o) : s_(s), o_(o) {
    const auto& t = s.time_s;
    std::vector<double> steps;
    for (std::size_t i = 1; i < t.size(); ++i) steps.push_back(t[i] - t[i - 1]);
    dt_ = steps.empty() ? 1.0 : core::median(std::move(steps));
    if (!(dt_ > 0.0)) dt_ = 1.0;
    const auto samples = [&](double seconds) {
      return std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(seconds / dt_)));
    };
    window_ = samples(o.running_median_s) | 1;  // odd
    level_window_ = samples(o.level_window_s);
  }

  EpochFinding run() {
    EpochFinding out;
    const auto& p = s_.power_W;
    const std::size_t n = p.size();
    if (n < 12) return out;
    const std::vector<double> smooth = running_median(p.data(), n, 3);
    const double idle = *std::min_element(smooth.begin(), smooth.end());
    const double median = core::median(p);
    // Without an idle level apart from the working one (a log that starts and ends mid-run), all is active.
    const double level = median - idle >= 0.1 * median ? idle + 0.5 * (median - idle) : kNegInf;
    std::size_t a = n, b = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (!(p[i] < level)) a = std::min(a, i), b = i + 1;
    if (a >= b || b - a < 12) return out;

    // Candidate boundaries, relative to a: gaps [i, j) and level shifts (t, t).
    std::vector<std::pair<std::size_t, std::size_t>> gaps;
    for (std::size_t i = a; i < b;) {
      if (!(p[i] < level)) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < b && p[j] < level) ++j;
      if (j - i >= o_.gap_samples) gaps.emplace_back(i - a, j - a);
      i = j;
    }
    std::vector<std::pair<std::size_t, std::size_t>> cuts_at = gaps;
    for (const std::size_t t : level_shifts(a, b))
      if (std::none_of(gaps.begin(), gaps.end(), [&](const auto& g) {
            return t + level_window_ >= g.first && t <= g.second + level_window_;
          }))
        cuts_at.emplace_back(t, t);
    std::sort(cuts_at.begin(), cuts_at.end());
    drop_recurring(cuts_at);
    std::vector<std::size_t> cuts{0};
    for (const auto& [i, j] : cuts_at) cuts.push_back(i), cuts.push_back(j);
    cuts.push_back(b - a);
    std::vector<std::pair<std::size_t, std::size_t>> pieces;
    for (std::size_t k = 0; k + 1 < cuts.size(); k += 2)
      if (cuts[k + 1] >= cuts[k] + 3) pieces.emplace_back(a + cuts[k], a + cuts[k + 1]);

    // Short pieces join the next (the last the previous); neighbours of one period join.
    for (bool changed = true; changed && pieces.size() > 1;) {
      changed = false;
      for (std::size_t k = 0; k < pieces.size(); ++k) {
        const auto [from, to] = pieces[k];
        const auto P = period(from, to);
        if (P && static_cast<double>(to - from) >= o_.min_periods * *P) continue;
        if (k + 1 < pieces.size())
          pieces[k + 1].first = from;
        else
          pieces[k - 1].second = to;
        pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(k));
        changed = true;
        break;
      }
    }
    for (bool changed = true; changed && pieces.size() > 1;) {
      changed = false;
      for (std::size_t k = 0; k + 1 < pieces.size(); ++k) {
        const auto P1 = period(pieces[k].first, pieces[k].second);
        const auto P2 = period(pieces[k + 1].first, pieces[k + 1].second);
        if (!P1 || !P2 || std::abs(*P1 - *P2) > o_.period_agreement * std::min(*P1, *P2)) continue;
        pieces[k].second = pieces[k + 1].second;
        pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(k + 1));
        changed = true;
        break;
      }
    }

    const auto& t = s_.time_s;
    for (const auto& [from, to] : pieces) {
      EpochStage st;
      st.first = from;
      st.end = to;
      st.start_s = t[from];
      st.end_s = t[to - 1];
      const auto P = period(from, to);
      std::vector<std::size_t> ends;  // each epoch's closing sample
      if (P) {
        st.period_s = *P * dt_;
        ends = events(from, to, *P);
      } else {
        ends.push_back(to - 1);
      }
      st.epochs = ends.size();
      std::size_t begin = from;
      for (const std::size_t e : ends) {
        out.epochs.push_back({t[begin], t[e], trapezoid(begin, e)});
        begin = e;
      }
      out.stages.push_back(st);
    }
    return out;
  }

 private:
  /// Boundaries that recur at the common spacing (within period_agreement of the median spacing, to either
  /// neighbour) are the epochs' own valleys or dips (a checkpoint down to the idle level), not stages.
  void drop_recurring(std::vector<std::pair<std::size_t, std::size_t>>& cuts) const {
    if (cuts.size() < 3) return;
    std::vector<double> spacing;
    for (std::size_t k = 1; k < cuts.size(); ++k)
      spacing.push_back(static_cast<double>(cuts[k].first - cuts[k - 1].first));
    const double m = core::median(spacing);
    const auto steady = [&](double d) { return std::abs(d - m) < o_.period_agreement * m; };
    std::vector<std::pair<std::size_t, std::size_t>> kept;
    for (std::size_t k = 0; k < cuts.size(); ++k)
      if (!((k > 0 && steady(spacing[k - 1])) || (k + 1 < cuts.size() && steady(spacing[k]))))
        kept.push_back(cuts[k]);
    cuts.swap(kept);
  }

  /// Samples [from, to) less their running median, clipped at clip_sigma x the noise.
  std::vector<double> residual(std::size_t from, std::size_t to) const {
    const std::size_t n = to - from;
    const std::vector<double> level = running_median(s_.power_W.data() + from, n, window_);
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n; ++i) r[i] = s_.power_W[from + i] - level[i];
    const double c = o_.clip_sigma * noise_of(r);
    for (double& x : r) x = std::clamp(x, -c, c);
    return r;
  }

  /// The period of samples [from, to) in samples, or none.
  std::optional<double> period(std::size_t from, std::size_t to) const {
    const std::size_t n = to - from;
    if (n < 8) return std::nullopt;
    std::vector<double> r = residual(from, to);
    double mean = 0.0;
    for (const double x : r) mean += x;
    mean /= static_cast<double>(n);
    for (double& x : r) x -= mean;
    // The autocorrelation through the FFT (zero-padded to twice the length: no wrap-around), O(n log n) for
    // a day of samples.
    std::size_t nfft = 1;
    while (nfft < 2 * n) nfft <<= 1;
    r.resize(nfft, 0.0);
    std::vector<std::complex<double>> spectrum;
    fft_.fwd(spectrum, r);
    for (auto& c : spectrum) c = std::norm(c);
    std::vector<double> sums;
    fft_.inv(sums, spectrum);
    std::vector<double> ac(n / 2);
    for (std::size_t l = 0; l < ac.size(); ++l) ac[l] = sums[l] / static_cast<double>(n - l);
    if (!(ac[0] > 0.0)) return std::nullopt;
    for (std::size_t l = ac.size(); l-- > 0;) ac[l] /= ac[0];
    std::vector<std::size_t> peaks;
    for (std::size_t l = 3; l + 1 < ac.size(); ++l)
      if (ac[l] > ac[l - 1] && ac[l] >= ac[l + 1] && ac[l] > 0.2) peaks.push_back(l);
    if (peaks.empty()) return std::nullopt;
    double best = 0.0;
    for (const std::size_t l : peaks) best = std::max(best, ac[l]);
    const double p0 = static_cast<double>(
        *std::find_if(peaks.begin(), peaks.end(), [&](std::size_t l) { return ac[l] >= 0.5 * best; }));
    // The highest multiple within half the piece dates the period best.
    const auto m =
        static_cast<std::size_t>(std::max(1.0, std::floor((static_cast<double>(n / 2) - 1.0) / p0) - 1.0));
    const double md = static_cast<double>(m);
    const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(md * p0 - p0 / 4.0)));
    const auto hi = std::min(ac.size(), static_cast<std::size_t>(std::floor(md * p0 + p0 / 4.0)) + 1);
    if (lo >= hi) return p0;
    const std::size_t at =
        lo + static_cast<std::size_t>(std::max_element(ac.begin() + static_cast<std::ptrdiff_t>(lo),
                                                       ac.begin() + static_cast<std::ptrdiff_t>(hi)) -
                                      (ac.begin() + static_cast<std::ptrdiff_t>(lo)));
    return static_cast<double>(at) / md;
  }

  /// Level shifts in [a, b): samples t (relative to a) where the median of the level window after differs
  /// from the one before by more than level_shift_sigma x the noise, the largest within a window.
  std::vector<std::size_t> level_shifts(std::size_t a, std::size_t b) const {
    const std::size_t n = b - a, w = level_window_;
    std::vector<std::size_t> out;
    if (n <= 2 * w) return out;
    const std::vector<double> r = [&] {
      const std::vector<double> level = running_median(s_.power_W.data() + a, n, window_);
      std::vector<double> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = s_.power_W[a + i] - level[i];
      return v;
    }();
    const double noise = noise_of(r);
    std::vector<double> d(n, 0.0);
    const double* x = s_.power_W.data() + a;
    for (std::size_t t = w; t + w < n; ++t)
      d[t] = std::abs(window_median(x, t, t + w) - window_median(x, t - w, t));
    for (std::size_t t = w; t + w < n; ++t) {
      if (!(d[t] > o_.level_shift_sigma * noise)) continue;
      const auto from = d.begin() + static_cast<std::ptrdiff_t>(t > w ? t - w : 0);
      const auto to = d.begin() + static_cast<std::ptrdiff_t>(std::min(n, t + w + 1));
      if (d[t] == *std::max_element(from, to)) out.push_back(t);
    }
    return out;
  }

  /// The closing samples of the epochs of [from, to) with period P (samples), by dynamic programming.
  std::vector<std::size_t> events(std::size_t from, std::size_t to, double P) const {
    const std::vector<double> r = residual(from, to);
    const std::size_t n = r.size();
    const double noise = noise_of(r);
    std::vector<double> score(n, kNegInf);
    std::vector<long> back(n, -2);  // -1: the stage's start
    const double rigidity = o_.rigidity;
    const auto penalty = [&](double interval) {
      const double l = std::log(interval / P);
      return rigidity * l * l;
    };
    for (std::size_t t = 0; t < n; ++t) {
      const double td = static_cast<double>(t);
      double best = kNegInf;
      long arg = -2;
      if (td >= 0.5 * P && td <= 1.5 * P) {
        best = -penalty(std::max(td, 1.0));
        arg = -1;
      }
      const double lo_d = std::ceil(td - 1.5 * P), hi_d = std::floor(td - 0.5 * P);
      if (hi_d >= 0.0)
        for (auto tau = static_cast<std::size_t>(std::max(0.0, lo_d)); tau <= static_cast<std::size_t>(hi_d);
             ++tau) {
          if (score[tau] == kNegInf) continue;
          const double v = score[tau] - penalty(td - static_cast<double>(tau));
          if (v > best) best = v, arg = static_cast<long>(tau);
        }
      if (arg != -2) {
        score[t] = best + std::abs(r[t]) / noise;
        back[t] = arg;
      }
    }
    // The last epoch closes within half a period of the stage's end.
    const double end_from = std::max(0.0, std::floor(static_cast<double>(n) - 0.5 * P));
    long last = -1;
    for (auto t = static_cast<std::size_t>(end_from); t < n; ++t)
      if (score[t] != kNegInf && (last < 0 || score[t] > score[static_cast<std::size_t>(last)]))
        last = static_cast<long>(t);
    std::vector<std::size_t> out;
    for (long t = last; t >= 0; t = back[static_cast<std::size_t>(t)])
      out.push_back(from + static_cast<std::size_t>(t));
    std::reverse(out.begin(), out.end());
    return out;
  }

  double trapezoid(std::size_t from, std::size_t to) const {
    double e = 0.0;
    for (std::size_t i = from; i < to; ++i)
      e += 0.5 * (s_.power_W[i] + s_.power_W[i + 1]) * (s_.time_s[i + 1] - s_.time_s[i]);
    return e;
  }

  const GpuPowerSeries& s_;
  const EpochOptions& o_;
  mutable Eigen::FFT<double> fft_;
  double dt_ = 1.0;
  std::size_t window_ = 61, level_window_ = 30;
};

}  // namespace

EpochFinding find_epochs(const GpuPowerSeries& series, const EpochOptions& options) {
  return Finder(series, options).run();
}

}  // namespace fleetwatt::models::fit
