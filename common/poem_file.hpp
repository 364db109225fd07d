// poem_file.hpp: files of poems, one poem a line, read safely.
//
// Every program that reads a corpus (--corpus) checks it first with
// check_poem_file, before it prints anything; and reads its lines with
// read_line, which never holds more than one bounded line: a file without
// line breaks (one 60 MB line, /dev/zero) cannot fill the memory.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

namespace tang {

// No poem is near this long (the longest regular verse is about 200 bytes).
inline constexpr std::size_t kMaxPoemLineBytes = 64 * 1024;

enum class LineRead { kLine, kEnd, kTooLong };

// Reads up to the next '\n' (not kept) into `line`. kTooLong: more than
// max_bytes before it (the rest of that line is left unread); kEnd: nothing left.
LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes = kMaxPoemLineBytes);

// Throws BadOption naming `flag`, the file and the line when the file is not
// a regular file, is empty, has a byte-order mark, CR line ends, invalid
// UTF-8, a line over kMaxPoemLineBytes, or no poem at all.
void check_poem_file(const std::string& path, const std::string& flag = "--corpus");

}  // namespace tang
