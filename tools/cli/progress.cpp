// progress.cpp - see progress.hpp.
#include "progress.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "errors.hpp"

namespace fcli {
namespace {

volatile sig_atomic_t g_cancel = 0;

extern "C" void on_sigint(int) { g_cancel = 1; }

}  // namespace

void install_cancel_handler() {
  struct sigaction sa = {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second Ctrl-C takes the default action: kill at once
  sigaction(SIGINT, &sa, nullptr);
}

void block_cancel_signal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

bool cancel_requested() { return g_cancel != 0; }

void check_cancel() {
  if (cancel_requested()) cancelled();
}

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

Progress::Progress(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (bar_drawn_) std::fputc('\n', stderr);
}

void Progress::clear_line() {
  if (bar_drawn_) {
    std::fputs("\r\033[K", stderr);
    bar_drawn_ = false;
  }
}

void Progress::note(const std::string& text) {
  if (quiet_) return;
  if (holding_) {
    held_.push_back(text);
    return;
  }
  clear_line();
  std::fprintf(stderr, "fastconn: %s\n", text.c_str());
}

void Progress::release_notes() {
  holding_ = false;
  for (const std::string& text : held_) note(text);
  held_.clear();
}

void Progress::begin(const std::string& label) {
  label_ = label;
  active_ = true;
  start_ = now_seconds();
  last_draw_ = -1;
  last_decile_ = -1;
}

int Progress::update(int64_t done, int64_t total) {
  if (cancel_requested()) return 1;
  if (quiet_ || !active_ || total <= 0) return 0;
  const double fraction = done >= total ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const double t = now_seconds();
  const double elapsed = t - start_;
  if (tty_) {
    // Redraw at most 10 times a second: the callback may come thousands of times.
    if (fraction < 1.0 && last_draw_ >= 0 && t - last_draw_ < 0.1) return 0;
    last_draw_ = t;
    const int width = 30;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(width - filled), '.');
    std::string eta;
    if (fraction > 0.02 && fraction < 1.0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, ", %.0f s left", elapsed * (1.0 - fraction) / fraction);
      eta = buf;
    }
    std::fprintf(stderr, "\r\033[Kfastconn: %s [%s] %3d%% %.1f s%s", label_.c_str(), bar.c_str(),
                 static_cast<int>(fraction * 100.0), elapsed, eta.c_str());
    std::fflush(stderr);
    bar_drawn_ = true;
  } else {
    const int decile = static_cast<int>(fraction * 10.0);
    if (decile > last_decile_) {
      last_decile_ = decile;
      std::fprintf(stderr, "fastconn: %s %3d%% (%.1f s)\n", label_.c_str(), decile * 10, elapsed);
    }
  }
  return 0;
}

void Progress::end() {
  if (active_ && !quiet_ && bar_drawn_) {
    std::fputc('\n', stderr);
    bar_drawn_ = false;
  }
  active_ = false;
}

int Progress::callback(int64_t done, int64_t total, void* user) {
  return static_cast<Progress*>(user)->update(done, total);
}

}  // namespace fcli
