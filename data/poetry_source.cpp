#include "poetry_source.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <fstream>
#include <unistd.h>
#include <iostream>
#include <opencc/Exception.hpp>
#include <utility>

namespace poetry {

int run_reporting_errors(const char* program, const std::function<int()>& body) {
  try {
    const int status = body();
    std::cout.flush();  // what it printed must have reached stdout
    if (!std::cout) {
      std::cerr << program << ": error: could not write to stdout (closed, or the disk is full)\n";
      return 1;
    }
    return status;
  } catch (const DataError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
  } catch (const opencc::Exception& e) {  // e.g. t2s.json not installed
    std::cerr << program << ": error: OpenCC: " << e.what() << "\n";
  } catch (const std::exception& e) {  // filesystem errors and the like
    std::cerr << program << ": error: " << e.what() << "\n";
  }
  return 1;
}

// ---------------------------------------------------------------------------
std::optional<std::u32string> decode_utf8(const std::string& text) {
  std::u32string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    int extra = 0;
    char32_t cp = 0;
    if (lead < 0x80) {
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      extra = 1;
      cp = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2;
      cp = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3;
      cp = lead & 0x07;
    } else {
      return std::nullopt;
    }
    if (i + extra >= text.size()) return std::nullopt;  // sequence cut off at the end
    for (int k = 1; k <= extra; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      if ((byte & 0xC0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (byte & 0x3F);
    }
    // Reject overlong forms, surrogates and values past U+10FFFF.
    static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    out.push_back(cp);
    i += 1 + extra;
  }
  return out;
}

std::string encode_utf8(char32_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

bool is_cjk(char32_t c) {
  return c >= 0x4E00 && c <= 0x9FFF;
}
bool is_line_end(char32_t c) {
  return c == U'，' || c == U'。';
}

// ---------------------------------------------------------------------------
void require_package_dir(const fs::path& package_dir) {
  if (!fs::is_directory(package_dir)) {
    throw DataError("package folder not found: " + package_dir.string() +
                    " (run scripts/fetch_corpus.sh)");
  }
}

std::optional<long> tang_file_number(const std::string& name) {
  const std::string prefix = "poet.tang.";
  const std::string suffix = ".json";
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) ||
      !name.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
    return std::nullopt;
  return std::stol(digits);
}

std::vector<fs::path> list_tang_files(const fs::path& dir, std::string_view hint) {
  if (!fs::is_directory(dir)) {
    throw DataError("folder not found: " + dir.string() + " (" + std::string(hint) + ")");
  }
  std::vector<std::pair<long, fs::path>> numbered;  // (N, path)
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (const auto n = tang_file_number(entry.path().filename().string())) {
      numbered.emplace_back(*n, entry.path());
    }
  }
  if (numbered.empty()) throw DataError("no poet.tang.*.json files in " + dir.string());
  std::sort(numbered.begin(), numbered.end());  // numeric order: 0, 1000, 2000, ..., 10000
  std::vector<fs::path> files;
  for (const auto& [number, path] : numbered) files.push_back(path);
  return files;
}

nlohmann::json read_json_array(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError("cannot open " + file.string());
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw DataError("bad JSON in " + file.string() + ": " + e.what());
  }
  if (!doc.is_array()) throw DataError("bad JSON in " + file.string() + ": expected an array");
  return doc;
}

void write_file_whole(const fs::path& path, const std::string& bytes) {
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw DataError("cannot write " + tmp.string() + " (is the folder writable?)");
    out << bytes;
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw DataError("error while writing " + path.string() +
                      " (is the disk full?); the previous file, if any, is unchanged");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw DataError("cannot replace " + path.string() + " (" + ec.message() + ")");
  }
}

}  // namespace poetry
