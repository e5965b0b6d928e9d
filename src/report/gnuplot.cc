#include "ackstall/report/gnuplot.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

namespace ackstall::report {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

core::Result<std::string> terminal_for(const std::string& path, int width, int height) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return core::fail(path + ": directory " + dir.string() + " does not exist");
  const std::string ext = p.extension().string();
  if (ext == ".png") return fmt::format("set terminal pngcairo size {},{} font 'sans,10'", width, height);
  if (ext == ".svg") return fmt::format("set terminal svg size {},{} dynamic font 'sans,10'", width, height);
  if (ext == ".pdf")
    return fmt::format("set terminal pdfcairo size {:.2f}in,{:.2f}in font 'sans,7'", width / 100.0, height / 100.0);
  return core::fail(path + ": unknown plot format '" + ext + "' (the extension must be .png, .svg or .pdf)");
}

core::Result<ScratchDir> ScratchDir::make() {
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / "ackstall-plot-XXXXXX").string();
  if (ec || ::mkdtemp(pattern.data()) == nullptr) return core::fail("cannot create a scratch directory " + pattern);
  return ScratchDir(pattern);
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

core::Result<void> run_gnuplot(const std::filesystem::path& script, const std::string& output) {
  const std::filesystem::path log = script.parent_path() / "gnuplot.log";
  const std::string cmd = "gnuplot " + shell_quote(script.string()) + " >" + shell_quote(log.string()) + " 2>&1";
  const int rc = std::system(cmd.c_str());
  if (rc == -1 || !WIFEXITED(rc)) return core::fail("cannot run gnuplot");
  if (WEXITSTATUS(rc) == 127) return core::fail("gnuplot not found (Debian package gnuplot-nox)");
  if (WEXITSTATUS(rc) != 0) {
    // gnuplot echoes the offending script line, a caret, then `"file" line N: message`.
    std::ifstream in(log);
    std::string line, last;
    while (std::getline(in, line))
      if (line.find_first_not_of(" \t^") != std::string::npos) last = line;
    if (const auto colon = last.find(": "); last.starts_with('"') && colon != std::string::npos)
      last = last.substr(colon + 2);
    return core::fail("gnuplot failed: " + (last.empty() ? "exit " + std::to_string(WEXITSTATUS(rc)) : last));
  }
  std::error_code ec;
  if (!std::filesystem::exists(output, ec)) return core::fail("gnuplot wrote no " + output);
  return {};
}

std::string gp_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace ackstall::report
