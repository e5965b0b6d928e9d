// lab/matrix.h: lab matrix's medians and its JSON and CSV files (no namespaces needed).
#include "ackstall/lab/matrix.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../tools/temp_dir.h"

namespace ackstall::lab {
namespace {

using tools::TempDir;  // tests/tools/temp_dir.h

std::string read(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(LabMatrix, Median) {
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(LabMatrix, WritesJsonAndCsv) {
  const TempDir dir;
  const MatrixSetup setup{"classic", "100mbit", 8192, true, true, 3, 1.0, 11.8};
  const std::vector<MatrixCell> cells = {{15928, "unpatched", {0.4, 0.3, 0.5}, {5, 6, 4}, {990, 995, 985}, {5, 6, 4}, ""},
                                         {15928, "chunked", {11.0, 11.2, 10.9}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, "x.pcapng"}};
  ASSERT_TRUE(write_matrix_json((dir / "m.json").string(), setup, cells));
  const auto j = nlohmann::json::parse(read(dir / "m.json"));
  EXPECT_EQ(j["config"]["ack_mode"], "classic");
  EXPECT_EQ(j["rows"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["rows"][0]["median_mb_s"].get<double>(), 0.4);
  EXPECT_EQ(j["rows"][1]["capture"], "x.pcapng");
  EXPECT_FALSE(j["rows"][0].contains("capture"));
  ASSERT_TRUE(write_matrix_csv((dir / "m.csv").string(), setup, cells));
  const std::string csv = read(dir / "m.csv");
  EXPECT_NE(csv.find("15928,unpatched,0.4000,0.3000,0.5000,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("15928,chunked,11.0000,10.9000,11.2000,"), std::string::npos) << csv;
  const auto bad = write_matrix_csv((dir / "no-such-dir" / "m.csv").string(), setup, cells);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("cannot write"), std::string::npos);
}

}  // namespace
}  // namespace ackstall::lab
