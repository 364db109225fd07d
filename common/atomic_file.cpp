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

// The bytes in a fresh temporary file next to `path`, flushed to the disk. It is
// closed, and removed when the object goes, unless `keep` was set.
struct Temporary {
  std::string path;
  int fd = -1;
  bool keep = false;
  ~Temporary() {
    if (fd >= 0) ::close(fd);
    if (!keep && !path.empty()) ::unlink(path.c_str());
  }
};

void write_temporary(Temporary& tmp, const std::string& path, std::string_view bytes) {
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
  const auto failed = [&] {
    return UserError("writing " + path + " failed (" + std::strerror(errno) +
                     "): is the disk full? The previous file, if any, is unchanged");
  };
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(tmp.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw failed();
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(tmp.fd) != 0) throw failed();
  ::close(tmp.fd);
  tmp.fd = -1;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
  Temporary tmp;
  write_temporary(tmp, path, bytes);
  if (::rename(tmp.path.c_str(), path.c_str()) != 0) {
    throw UserError("cannot replace " + path + " (" + std::strerror(errno) + ")");
  }
  tmp.keep = true;
}

bool write_new_file_atomically(const std::string& path, std::string_view bytes) {
  Temporary tmp;
  write_temporary(tmp, path, bytes);
  // link() fails with EEXIST where rename() would replace a file that appeared
  // meanwhile; the temporary name goes either way.
  if (::link(tmp.path.c_str(), path.c_str()) == 0) return true;
  if (errno == EEXIST) return false;
  throw UserError("cannot name " + path + " (" + std::strerror(errno) + ")");
}

}  // namespace tang
