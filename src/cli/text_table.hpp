// A plain-text table for terminal output: columns sized to their widest cell, numbers
// right-aligned so that digits line up.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kapla::cli {

class TextTable {
 public:
  enum class Align { Left, Right };
  struct Column {
    std::string title;
    Align align = Align::Left;
  };

  explicit TextTable(std::vector<Column> columns);
  /// One row; it must have one cell per column.
  void add_row(std::vector<std::string> cells);
  /// Header line, then the rows; cells are separated by two spaces, no trailing blanks.
  void print(std::ostream& os) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace kapla::cli
