// A Markdown summary of a report, ready to paste into an issue thread:
// verdict, findings, key numbers, the failing checks with cause and fix, and
// the environment (GPU, driver, torch build, CPU BLAS). GitHub-flavoured.
#pragma once

#include <string>

#include "core/evidence.hpp"

namespace accel {

struct MarkdownOptions {
  /// At most this many failing items are listed (the rest are counted).
  int max_problems = 25;
};

std::string render_markdown(const Report& report, const MarkdownOptions& options = {});

/// Escapes text for one cell of a Markdown table (pipes, newlines, HTML).
std::string markdown_cell(const std::string& text);

}  // namespace accel
