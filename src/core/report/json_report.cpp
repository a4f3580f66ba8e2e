#include "core/report/json_report.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

namespace accel {

std::string report_to_json_text(const Report& report) {
  const json j = report;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void write_report_file(const Report& report, const std::string& path) {
  write_text_file(path, report_to_json_text(report), "report");
}

void write_text_file(const std::string& path, const std::string& text, const std::string& what) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot write {} to '{}'", what, path));
    out << text;
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {} to '{}'", what, path));
  }
  // std::filesystem::rename replaces an existing file on Windows too
  // (MoveFileExW with MOVEFILE_REPLACE_EXISTING), where std::rename fails.
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write {} to '{}'", what, path));
  }
}

}  // namespace accel
