#include "atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "errors.hpp"
#include "rng.hpp"

namespace tang {

namespace {

// Closes and removes the temporary file unless it was renamed.
struct Temporary {
  std::string path;
  int fd = -1;
  bool renamed = false;
  ~Temporary() {
    if (fd >= 0) ::close(fd);
    if (!renamed && !path.empty()) ::unlink(path.c_str());
  }
};

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
  Temporary tmp;
  // a name no one else is using: pid and a few random bits
  Rng rng(static_cast<std::uint64_t>(::getpid()) ^ reinterpret_cast<std::uintptr_t>(&tmp));
  for (int attempt = 0; attempt < 16 && tmp.fd < 0; ++attempt) {
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, ".tmp.%d.%08llx", static_cast<int>(::getpid()),
                  static_cast<unsigned long long>(rng.next_u64() & 0xffffffffull));
    tmp.path = path + suffix;
    tmp.fd = ::open(tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (tmp.fd < 0 && errno != EEXIST) {
      const std::string reason = std::strerror(errno);
      tmp.path.clear();
      throw UserError("cannot write " + path + " (" + reason +
                      "): check that its folder exists and is writable");
    }
  }
  if (tmp.fd < 0) throw UserError("cannot create a temporary file next to " + path);
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(tmp.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw UserError("writing " + path + " failed (" + std::strerror(errno) +
                      "): is the disk full? The previous file, if any, is unchanged");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(tmp.fd) != 0) {
    throw UserError("writing " + path + " failed (" + std::strerror(errno) +
                    "): is the disk full? The previous file, if any, is unchanged");
  }
  ::close(tmp.fd);
  tmp.fd = -1;
  if (::rename(tmp.path.c_str(), path.c_str()) != 0) {
    throw UserError("cannot replace " + path + " (" + std::strerror(errno) + ")");
  }
  tmp.renamed = true;
}

}  // namespace tang
