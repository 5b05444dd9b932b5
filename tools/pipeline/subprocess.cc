/*! \file subprocess.cc
 *  \brief posix_spawn with both output streams captured through temporary files.
 */
#include "tools/pipeline/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "support/file_util.h"

extern char** environ;

namespace mlc {
namespace pipeline {

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::function<void(double)>& on_tick) {
  ProcessResult result;
  const char* tmpdir = std::getenv("TMPDIR");
  std::string base = std::string(tmpdir ? tmpdir : "/tmp") + "/mlc_stage_XXXXXX";
  std::vector<char> out_name(base.begin(), base.end()), err_name(base.begin(), base.end());
  out_name.push_back('\0');
  err_name.push_back('\0');
  int out_fd = mkstemp(out_name.data()), err_fd = mkstemp(err_name.data());
  if (out_fd < 0 || err_fd < 0) {
    result.stderr_text = "cannot create temporary files";
    return result;
  }
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  auto start = std::chrono::steady_clock::now();
  pid_t pid;
  int rc = posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) {
    int status = 0;
    if (on_tick) {
      // Polled, so the caller can show that a long stage is alive.
      while (waitpid(pid, &status, WNOHANG) == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        on_tick(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    } else {
      waitpid(pid, &status, 0);
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else {
    result.stderr_text = std::string("cannot start ") + argv[0] + ": " + std::strerror(rc);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  close(out_fd);
  close(err_fd);
  if (rc == 0) {
    result.stdout_text = ReadFile(out_name.data()).value_or("");
    result.stderr_text = ReadFile(err_name.data()).value_or("");
  }
  unlink(out_name.data());
  unlink(err_name.data());
  return result;
}

}  // namespace pipeline
}  // namespace mlc
