// errors.hpp - how the program fails: one exception type that carries the exit code and one line
// of text. Every failure unwinds to main(), so the destructors of the outputs in flight delete
// their temporary files and no partial output is left behind.
#pragma once

#include <stdexcept>
#include <string>

#include <fastconn/fastconn.h>

namespace fcli {

// Exit codes (README, "Command line"): a script can tell bad input from a library failure from
// Ctrl-C without parsing the message. 130 = 128 + SIGINT, the shell's own convention.
enum : int { kExitOk = 0, kExitBadInput = 1, kExitLibrary = 2, kExitCancelled = 130 };

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Bad input or usage: exit 1 with `message`.
[[noreturn]] void fail(const std::string& message);

// Ctrl-C was pressed: exit 130.
[[noreturn]] void cancelled();

// Checks the status of a fastconn call: an error throws with `what` and fc_last_error(), copied at
// once (the text is only valid until the next fastconn call). FC_ERR_ABORTED (the progress
// callback saw Ctrl-C) exits 130; invalid arguments and non-finite input are the user's input
// (exit 1); anything else (memory, device, I/O, internal) is a library failure (exit 2).
void check(fc_status status, const std::string& what);
// The same for a status and fc_last_error() text captured earlier, on another thread (the text is
// thread-local): the context started on its own thread (context_start.hpp).
[[noreturn]] void fail_status(fc_status status, const std::string& what, std::string detail);

// strerror(errnum) as a std::string (the system's reason for a failed file operation).
std::string system_reason(int errnum);

}  // namespace fcli
