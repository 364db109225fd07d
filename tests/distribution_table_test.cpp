// distribution_table_test: lesson 02's distribution_table, the numbers behind
// docs/temperature-distribution.svg: ranked at T = 1, each column a share of
// one softmax, colder columns more peaked at the top.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Row {
  std::string character;
  double cold, one, hot;  // p at T = 0.3, 1, 1.5
};

std::string run(const std::string& args, int& status) {
  const std::string command = std::string("'") + TANG_DISTRIBUTION_TABLE + "' " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  status = pclose(pipe);
  return out;
}

TEST(DistributionTable, RanksTheTopCharactersAtThreeTemperatures) {
  if (!std::filesystem::exists(std::string(TANG_DATA_DIR) + "/tang_gpt.safetensors"))
    GTEST_SKIP() << "the shipped model is missing";
  int status = -1;
  const std::string out = run("--count 30", status);
  ASSERT_EQ(status, 0) << out;
  std::istringstream lines(out);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header, "rank\tcharacter\tT=0.3\tT=1.0\tT=1.5");
  std::vector<Row> rows;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::size_t rank = 0;
    Row r;
    ASSERT_TRUE(fields >> rank >> r.character >> r.cold >> r.one >> r.hot) << line;
    EXPECT_EQ(rank, rows.size() + 1) << line;
    rows.push_back(r);
  }
  ASSERT_EQ(rows.size(), 30u);
  double total_one = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    total_one += rows[i].one;
    if (i > 0) {
      EXPECT_LE(rows[i].one, rows[i - 1].one) << "ranked by p at T = 1, row " << i + 1;
    }
  }
  EXPECT_LE(total_one, 1.0 + 1e-5) << "shares of one distribution";
  // the favourite gets more at a lower temperature, less at a higher one
  EXPECT_GT(rows[0].cold, rows[0].one);
  EXPECT_GT(rows[0].one, rows[0].hot);
}

TEST(DistributionTable, AnUnknownCharacterIsAOneLineError) {
  int status = -1;
  const std::string out = run("--context '春😀'", status);
  EXPECT_NE(status, 0);
  EXPECT_EQ(out.rfind("error: ", 0), 0u) << out;
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << out;
}

}  // namespace
