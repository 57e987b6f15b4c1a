// log_under_mutex - facebook/rocksdb#10029: the info LOG (env/env_posix.cc,
// logging/posix_logger.h): each line is formatted with a timestamp and
// written at once, so that a crash loses none.
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>

#include "db_impl.h"

namespace rocksdb {

void Logger::Logv(const char* format, va_list ap) {
  char buf[1024];
  struct timeval now_tv;
  gettimeofday(&now_tv, nullptr);
  const time_t seconds = now_tv.tv_sec;
  struct tm t;
  localtime_r(&seconds, &t);
  // The timestamp is the same width in every line; the checksum does not
  // cover the LOG, which holds it.
  int n = std::snprintf(buf, sizeof buf, "%04d/%02d/%02d-%02d:%02d:%02d.%06ld ", t.tm_year + 1900,
                        t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, long(now_tv.tv_usec));
  n += std::vsnprintf(buf + n, sizeof buf - n - 1, format, ap);
  if (n > int(sizeof buf) - 2) {
    n = int(sizeof buf) - 2;
  }
  buf[n++] = '\n';
  const char* p = buf;
  while (n > 0) {
    ssize_t w = write(fd_, p, size_t(n));
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += w;
    n -= int(w);
    bytes_ += uint64_t(w);
  }
}

void Log(Logger* info_log, const char* format, ...) {
  if (info_log == nullptr) return;
  va_list ap;
  va_start(ap, format);
  info_log->Logv(format, ap);
  va_end(ap);
}

} // namespace rocksdb
