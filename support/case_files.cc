/*! \file case_files.cc */
#include "support/case_files.h"

#include <dirent.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace mlc {

std::vector<std::string> CaseNames(const std::string& dir, const std::string& suffix,
                                   const std::string& except_suffix) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (!absl::EndsWith(n, suffix) || (!except_suffix.empty() && absl::EndsWith(n, except_suffix))) continue;
      names.push_back(n.substr(0, n.size() - suffix.size()));
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string CaseDirective(const std::string& text, const std::string& key) {
  std::string prefix = absl::StrCat("# ", key, ":");
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::string_view l = absl::StripLeadingAsciiWhitespace(line);
    if (absl::ConsumePrefix(&l, prefix)) return std::string(absl::StripAsciiWhitespace(l));
  }
  return "";
}

}  // namespace mlc
