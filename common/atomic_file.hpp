// atomic_file.hpp: replace a file so that a crash, a signal or a full disk
// leaves either the old file or the new one, never a mix.
//
// The bytes go to a fresh temporary file next to the target (created with
// O_EXCL | O_NOFOLLOW, so it is never another process's file or a planted
// symbolic link), are flushed to the disk, and only then renamed over the
// target, which is atomic. On any failure the temporary file is removed and a
// UserError names the path and the reason.
#pragma once

#include <string>
#include <string_view>

namespace tang {

void write_file_atomically(const std::string& path, std::string_view bytes);

// The same, for a file that must not exist yet: the bytes are given the name only if
// no file holds it by then. Returns false, and leaves that file alone, when one does.
bool write_new_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace tang
