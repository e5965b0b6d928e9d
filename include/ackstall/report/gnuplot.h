// Running gnuplot (Debian gnuplot-nox) for `sim --plot`: the output format from the file's
// extension, a private scratch directory, and a failure reported as one line.
#pragma once

#include <filesystem>
#include <string>

#include "ackstall/core/error.h"

namespace ackstall::report {

// The gnuplot `set terminal` line for PATH by its extension: .png (pngcairo), .svg, .pdf
// (pdfcairo); WIDTH x HEIGHT in pixels (pdf: at 100 px per inch). Fails on any other extension
// and on a directory that does not exist, naming the path.
core::Result<std::string> terminal_for(const std::string& path, int width, int height);

// A scratch directory of its own (mkdtemp), removed with its contents on destruction.
class ScratchDir {
 public:
  static core::Result<ScratchDir> make();
  ScratchDir(ScratchDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  ScratchDir& operator=(ScratchDir&&) = delete;
  ~ScratchDir();
  const std::filesystem::path& path() const noexcept { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  explicit ScratchDir(std::filesystem::path p) : path_(std::move(p)) {}
  std::filesystem::path path_;
};

// Runs `gnuplot SCRIPT`; on failure the error is gnuplot's own last message, one line.
// OUTPUT must exist afterwards.
core::Result<void> run_gnuplot(const std::filesystem::path& script, const std::string& output);

// A gnuplot double-quoted string literal.
std::string gp_quote(const std::string& s);

}  // namespace ackstall::report
