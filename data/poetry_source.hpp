// poetry_source.hpp: what prepare_corpus, prepare_tones and prepare_rhymes share:
// reading the chinese-poetry npm package (its numbered JSON files, JSON arrays of
// entries), strict UTF-8 in both directions, the CJK test, and the one-line errors.
//
// Not common/utf8.hpp: its functions throw tang::UserError at the first bad byte,
// while these programs need "not valid UTF-8" as an answer (a poem that is not is
// dropped or skipped and counted), and tang_common would bring xtensor and CLI11.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace poetry {

namespace fs = std::filesystem;

// An error we report as one line and exit with status 1.
struct DataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `body` and returns its status; an error is printed as one line,
// "<program>: error: <what>" ("<program>: error: OpenCC: <what>" for OpenCC's,
// e.g. t2s.json not installed), and gives status 1.
int run_reporting_errors(const char* program, const std::function<int()>& body);

// ---------------------------------------------------------------------------
// UTF-8 in both directions. decode_utf8 returns nothing if the text is not valid UTF-8.
std::optional<std::u32string> decode_utf8(const std::string& text);
std::string encode_utf8(char32_t c);

// A CJK Unified Ideograph, U+4E00..U+9FFF (extension A/B and compatibility
// ideographs do NOT count).
bool is_cjk(char32_t c);
// The end of a line (句) of a poem: '，' or '。'.
bool is_line_end(char32_t c);

// ---------------------------------------------------------------------------
// The package (chinese-poetry@2.0.1, unpacked by scripts/fetch_corpus.sh).

// Throws "package folder not found: <dir> (run scripts/fetch_corpus.sh)" unless it is a folder.
void require_package_dir(const fs::path& package_dir);

// The N of "poet.tang.<N>.json", or nothing for any other file name.
std::optional<long> tang_file_number(const std::string& name);

// The files <dir>/poet.tang.<N>.json in numeric order of N (0, 1000, 2000, ..., 10000).
// A missing folder is "folder not found: <dir> (<hint>)".
std::vector<fs::path> list_tang_files(const fs::path& dir, std::string_view hint);

// One JSON file whose top level is an array.
nlohmann::json read_json_array(const fs::path& file);

// Writes `bytes` to `path` through a temporary file next to it and a rename, so
// that a full disk or a signal leaves the old file or the new one, never half of
// one. Throws DataError naming the path.
void write_file_whole(const fs::path& path, const std::string& bytes);

}  // namespace poetry
