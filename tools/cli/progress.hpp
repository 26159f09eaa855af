// progress.hpp - what the user sees while fastconn works, and how Ctrl-C stops it.
//
// Ctrl-C sets a flag from the SIGINT handler (the only thing a handler may safely do); the
// library polls it through the progress callback (fc_context_set_progress: a non-zero return
// makes the running call stop with FC_ERR_ABORTED), and the program's own loops poll it between
// steps. Either way the error unwinds to main(), which deletes the temporary outputs and exits 130.
// A second Ctrl-C kills the program at once (the handler is installed with SA_RESETHAND), for a
// step that cannot be interrupted, such as decompressing a large .nii.gz.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fcli {

void install_cancel_handler();
// Blocks SIGINT in the calling thread (the program's helper threads call it first thing), so
// that Ctrl-C always reaches the main thread, which polls the flag, and never interrupts a
// helper inside a system call (a read, the CUDA driver's start).
void block_cancel_signal();
bool cancel_requested();
// Throws (exit 130) if Ctrl-C was pressed.
void check_cancel();

// Progress of one step on stderr: a redrawn bar when stderr is a terminal, otherwise plain lines
// at every 10 % (logs and CI stay readable). Quiet mode prints nothing.
class Progress {
 public:
  explicit Progress(bool quiet);
  ~Progress();  // ends a bar left drawn (an error in mid-step), so the error line starts clean

  // A line of information ("fastconn: ..."). While notes are held they are queued, so that bad
  // input found while the input is still being checked prints one line, the error, alone.
  void note(const std::string& text);
  void hold_notes() { holding_ = true; }
  void release_notes();

  void begin(const std::string& label);
  // Returns non-zero to cancel, as the library's callback expects.
  int update(int64_t done, int64_t total);
  void end();

  // The fc_progress_fn to give fc_context_set_progress, with `this` as user data.
  static int callback(int64_t done, int64_t total, void* user);

 private:
  void clear_line();

  bool quiet_;
  bool holding_ = false;
  std::vector<std::string> held_;
  bool tty_;
  bool active_ = false;
  bool bar_drawn_ = false;
  std::string label_;
  double start_ = 0;
  double last_draw_ = -1;
  int last_decile_ = -1;
};

// Monotonic seconds, for timings and the progress display.
double now_seconds();

}  // namespace fcli
