// Plain-text table layout.
#include "cli/text_table.hpp"

#include <algorithm>

#include "core/errors.hpp"

namespace kapla::cli {

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  KAPLA_ASSERT(cells.size() == columns_.size(), "TextTable: row width differs from the header");
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& os) const {
  std::vector<std::size_t> widths;
  for (const auto& c : columns_) widths.push_back(c.title.size());
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto print_line = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(widths[i] - cells[i].size(), ' ');
      if (i > 0) line += "  ";
      line += columns_[i].align == Align::Right ? pad + cells[i] : cells[i] + pad;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    os << line << '\n';
  };
  std::vector<std::string> titles;
  for (const auto& c : columns_) titles.push_back(c.title);
  print_line(titles);
  for (const auto& row : rows_) print_line(row);
}

}  // namespace kapla::cli
