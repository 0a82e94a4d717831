// Cachegrind reader/writer: corpus round trips and every bad-input error.
#include <span>
#include <string>

#include "container/ppk.h"
#include "error.h"
#include "formats/cachegrind/cachegrind.h"
#include "formats/registry.h"
#include "layer_text.h"
#include "model/model.h"
#include "testlib.h"

using namespace profpack;

namespace {
std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
ReadOptions opts() { return {kDefaultMaxPpkMessage, false}; }

// Expects reading `text` to fail as malformed Cachegrind at `line`, with `needle` in the message.
void expectError(const std::string& text, uint64_t line, const std::string& needle) {
  try {
    readCachegrind(bytes(text));
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(Status::malformed));
    CHECK_EQ(e.format(), std::string("cachegrind"));
    CHECK_EQ(e.line(), line);
    CHECK(e.offset() != kUnknown);
    CHECK_CONTAINS(e.what(), needle);
    return;
  }
  throw testlib::Failure{"expected an error containing: " + needle};
}

const char* kCorpus[] = {"cachegrind/cachegrind.workload.out",
                         "cachegrind/cachegrind.workload.ir-only.out"};
}  // namespace

TEST(detects_cachegrind) {
  for (const char* f : kCorpus)
    CHECK(detectFormat(bytes(testlib::slurp(testlib::data(f)))) == FormatId::cachegrind);
}

TEST(corpus_round_trip_is_byte_identical_and_ir_equal) {
  for (const char* f : kCorpus) {
    std::string original = testlib::slurp(testlib::data(f));
    auto first = readProfile(bytes(original), opts());
    std::string ppk = writeProfile(*first, FormatId::ppk, {});
    auto fromPpk = readProfile(bytes(ppk), opts());
    CHECK(equalIR(*first, *fromPpk));
    std::string back = writeProfile(*fromPpk, FormatId::cachegrind, {});
    CHECK(back == original);
    auto second = readProfile(bytes(back), opts());
    CHECK(equalIR(*first, *second));
  }
}

TEST(dots_missing_counts_and_repeated_lines) {
  std::string text =
      "desc: x\ncmd: prog\nevents: A B C\nfl=f.c\nfn=main\n1 . 2\n1 3\n2 1 1 1\nsummary: 4 3 1\n";
  auto p = readCachegrind(bytes(text));
  auto part = p->root().getParts()[0];
  CHECK_EQ(part.getCosts().getRows(), 3u);  // repeated line 1 kept as two rows
  std::string back = writeCachegrind(*p);
  CHECK(back == text);  // the '.' is kept as written (Part.verbatimRows)
  CHECK(equalIR(*p, *readCachegrind(bytes(back))));
}

// Body text the writer would not write itself is kept byte for byte: cg_merge's padded counts
// and trailing blanks, cg_diff's repeated fl= lines, comments and blank lines in the body, and
// a count line without its newline at the end.
TEST(irregular_body_text_round_trips) {
  const std::string texts[] = {
      "events: A B\nfl=a.c\nfn=f\n1   4 5 \n2   1 0 \nsummary: 5 5\n",
      "events: A\nfl=a.c\nfn=f\n0 3\nfl=a.c\nfn=g\n0 -1\nsummary: 2\n",
      "events: A\nfl=a.c\n# comment\nfn=f\n\n1 3\n\n# after\nsummary: 3\n",
      "events: A\nfl=a.c\nfn=f\n1 3\nfn=g",
  };
  for (const std::string& text : texts) {
    auto p = readCachegrind(bytes(text));
    std::string ppk = writeProfile(*p, FormatId::ppk, {});
    auto fromPpk = readProfile(bytes(ppk), opts());
    std::string back = writeProfile(*fromPpk, FormatId::cachegrind, {});
    CHECK_EQ(back, text);
    CHECK(equalIR(*p, *readCachegrind(bytes(back))));
  }
}

TEST(file_without_summary_round_trips_without_one) {
  // Found by the fuzz harness: the writer used to add a summary: line the file did not have.
  std::string text = "events: A\nfl=f.c\nfn=g\n3 4\n";
  auto p = readCachegrind(bytes(text));
  std::string back = writeCachegrind(*p);
  CHECK(back == text);
  CHECK(equalIR(*p, *readCachegrind(bytes(back))));
}

// The model of a profile just read sums its functions from what the reader summed as it
// encoded the rows (as for Callgrind); one read back from .ppk passes over the rows. Same layer.
TEST(layers_from_the_readers_sums_and_from_the_rows_agree) {
  std::vector<std::string> texts;
  for (const char* f : kCorpus) texts.push_back(testlib::slurp(testlib::data(f)));
  std::string big = "events: Ir Dr\n";
  for (int f = 0; f < 300; ++f) {
    big += "fl=src" + std::to_string(f % 9) + ".c\nfn=fn" + std::to_string(f % 250) + "\n";
    for (int r = 0; r < 70; ++r)
      big +=
          std::to_string(r + 1) + " " + std::to_string(r * 7 + f) + " " + std::to_string(r) + "\n";
  }
  texts.push_back(big);
  for (const std::string& text : texts) {
    auto fresh = readCachegrind(bytes(text));
    const std::string fromSums = testlib::layerText(*buildModel(*fresh, {}));
    CHECK(fresh->takeDecoded() != nullptr);
    auto fromPpk = readProfile(bytes(writeProfile(*fresh, FormatId::ppk, {})), opts());
    CHECK(fromPpk->takeDecoded() == nullptr);
    CHECK(fromPpk->storedModel() == nullptr);
    CHECK_EQ(testlib::layerText(*buildModel(*fromPpk, {})), fromSums);
  }
}

TEST(error_nul_byte) {
  // Found by fuzzing: a NUL in a header line was silently cut off in the IR.
  expectError(std::string("desc: a\nevents: A\0B\nfl=f.c\n", 27), 2, "NUL byte");
}

TEST(counts_before_any_fl_round_trip) {
  // Found by fuzzing: the writer emitted an empty "fl=" for costs that had no file.
  std::string text = "events: A\nfn=g\n3 4\nfl=x.c\nfn=h\n1 1\n";
  auto p = readCachegrind(bytes(text));
  CHECK(writeCachegrind(*p) == text);
}

TEST(blank_lines_after_summary_stay_after_it) {
  // Found by fuzzing: blank lines after the summary moved into the header on rewrite.
  std::string text = "events: A\nsummary: 0\n\n# end\n";
  auto p = readCachegrind(bytes(text));
  CHECK(writeCachegrind(*p) == text);
}

// A last line without its newline is written back without one when it is the summary: line or
// a line after it too (the writer added a newline: one byte more than the file).
TEST(trailer_without_its_newline_round_trips) {
  const std::string texts[] = {
      "events: A\nfl=a.c\nfn=f\n1 3\nsummary: 3",
      "events: A\nfl=a.c\nfn=f\n1 3\nsummary: 3\n\n# end",
      "events: A\nfl=a.c\nfn=f\n1 3\r\nsummary: 3\r",
  };
  for (const std::string& text : texts) {
    auto p = readCachegrind(bytes(text));
    CHECK_EQ(p->warnings().size(), size_t{1});
    std::string ppk = writeProfile(*p, FormatId::ppk, {});
    auto fromPpk = readProfile(bytes(ppk), opts());
    CHECK_EQ(writeProfile(*fromPpk, FormatId::cachegrind, {}), text);
    CHECK_EQ(writeCachegrind(*p), text);
    CHECK(equalIR(*p, *readCachegrind(bytes(writeCachegrind(*p)))));
  }
}

TEST(names_ending_in_carriage_return_round_trip) {
  // Found by fuzzing: "fn=x\r\r\n" names "x\r" (one '\r' is the CRLF ending); writing it
  // back as "fn=x\r\n" lost the name's own '\r'.
  std::string text = "events: A\nfl=f.c\nfn=x\r\r\n2 3\n";
  auto p = readCachegrind(bytes(text));
  std::string back = writeCachegrind(*p);
  CHECK(back == text);
  CHECK(equalIR(*p, *readCachegrind(bytes(back))));
}

TEST(crlf_line_endings) {
  std::string text = "cmd: p\r\nevents: A\r\nfl=f.c\r\nfn=g\r\n3 4\r\nsummary: 4\r\n";
  auto p = readCachegrind(bytes(text));
  CHECK_EQ(p->root().getParts()[0].getCosts().getRows(), 1u);
}

TEST(error_count_line_before_fn) {
  expectError("events: A\nfl=f.c\n3 4\n", 3, "count line before any fn=");
}
TEST(error_more_counts_than_events) {
  expectError("events: A B\nfl=f.c\nfn=g\n3 4 5 6\n", 4, "more counts than the 2 events");
}
TEST(error_non_numeric_count) {
  expectError("events: A B\nfl=f.c\nfn=g\n3 4 x5\n", 4, "expected a count");
}
TEST(error_overflowing_count) {
  expectError("events: A\nfl=f.c\nfn=g\n3 99999999999999999999999\n", 4, "does not fit in 64 bits");
}
TEST(error_missing_events) {
  expectError("desc: x\ncmd: y\nfl=f.c\nfn=g\n3 4\n", 3, "missing events:");
  expectError("desc: x\ncmd: y\n", 2, "missing events:");
}
TEST(error_summary_mismatch) {
  expectError("events: A B\nfl=f.c\nfn=g\n3 4 5\nsummary: 4 6\n", 5,
              "summary for event B is 6 but the counts add up to 5");
}
TEST(error_garbage_line) {
  expectError("events: A\nfl=f.c\nfn=g\nhello world\n", 4, "expected 'key: value'");
}
TEST(error_line_after_summary) {
  expectError("events: A\nfl=f.c\nfn=g\n3 4\nsummary: 4\nfn=h\n", 6, "after the summary");
}

TEST_MAIN()

// A file cut short: what is complete is loaded with a warning naming the byte offset where the
// file ends early; strict mode makes it an error at that offset. cg_annotate refuses such a
// file ("missing final summary line, aborting").
TEST(truncated_files_warn_and_strict_mode_refuses) {
  const std::string whole = testlib::slurp(testlib::data("cachegrind/cachegrind.workload.out"));
  ReadOptions strict = opts();
  strict.strict = true;
  CHECK(readProfile(bytes(whole), opts())->warnings().empty());
  CHECK(readProfile(bytes(whole), strict)->warnings().empty());
  const size_t summaryAt = whole.rfind("summary:");
  struct Cut {
    size_t size;          // bytes kept
    size_t offset;        // where the warning (or strict error) says the file ends early
    const char* message;  // in the first warning
    size_t warnings;
  };
  const size_t mid = whole.find('\n', 30000) + 1;  // a cut at a line's end, inside the body
  const Cut cuts[] = {
      {30000, whole.rfind('\n', 29999) + 1, "the last line ends without a newline", 2},
      {mid, mid, "ends without the summary: line", 1},
      {summaryAt, summaryAt, "ends without the summary: line", 1},
      // A cut summary that disagrees with the counts is left out: then there is none.
      {summaryAt + 12, summaryAt, "the last line ends without a newline", 2},
      {whole.size() - 1, summaryAt, "the last line ends without a newline", 1},
  };
  for (const Cut& c : cuts) {
    const std::string text = whole.substr(0, c.size);
    auto p = readProfile(bytes(text), opts());
    CHECK_EQ(p->warnings().size(), c.warnings);
    CHECK_CONTAINS(p->warnings()[0], "byte offset " + std::to_string(c.offset) + ": ");
    CHECK_CONTAINS(p->warnings()[0], c.message);
    // What was loaded writes back and reads again to the same IR.
    CHECK(equalIR(*p, *readProfile(bytes(writeCachegrind(*p)), opts())));
    try {
      readProfile(bytes(text), strict);
      CHECK(false);
    } catch (const Error& e) {
      CHECK(e.status() == Status::malformed);
      CHECK_EQ(e.offset(), uint64_t{c.offset});
      CHECK(e.line() != kUnknown);
      CHECK_CONTAINS(e.what(), c.message);
    }
  }
  // A complete summary line is still checked against the counts.
  std::string wrong = whole;
  wrong.replace(summaryAt, 10, "summary: 9");
  try {
    readProfile(bytes(wrong), opts());
    CHECK(false);
  } catch (const Error& e) {
    CHECK_CONTAINS(e.what(), "summary for event");
  }
}
