// DCPI reader/writer: corpus and generated round trips, queries against dcpi_gen.py --dump
// output, conversion from per-instruction costs, and every bad-input error with its offset.
#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "container/ppk.h"
#include "error.h"
#include "formats/callgrind/costs.h"
#include "formats/dcpi/dcpi.h"
#include "formats/dcpi/params.h"
#include "formats/registry.h"
#include "ir/column.h"
#include "model/model.h"
#include "testlib.h"

using namespace profpack;

namespace {

// Figures of one decoded image, computed here from its chunks and counts.
DcpiImage imageOf(const Profile& p, unsigned i = 0) {
  return decodeDcpiImage(p.root().getImages()[i]);
}
struct Totals {
  uint64_t chunks = 0, addresses = 0, addressesWithSamples = 0, samples = 0;
};
Totals totalsOf(const DcpiImage& d) {
  Totals t;
  t.chunks = d.offset.size();
  t.addresses = d.counts.size();
  for (uint64_t c : d.counts) {
    t.samples += c;
    t.addressesWithSamples += c != 0;
  }
  return t;
}
struct Chunk {
  uint64_t offset, address, number, samples, addresses;
};
std::vector<Chunk> chunksOf(const DcpiImage& d) {
  std::vector<Chunk> out;
  for (size_t k = 0; k < d.offset.size(); ++k) {
    Chunk c{d.offset[k], d.textStart + d.offset[k], d.number[k], 0, 0};
    for (uint64_t i = 0; i < d.number[k]; ++i) {
      c.samples += d.counts[d.firstCount[k] + i];
      c.addresses += d.counts[d.firstCount[k] + i] != 0;
    }
    out.push_back(c);
  }
  return out;
}
// Every address a chunk covers, zero counts included.
std::vector<DcpiAddressSamples> everyAddress(const DcpiImage& d) {
  std::vector<DcpiAddressSamples> out;
  for (size_t k = 0; k < d.offset.size(); ++k)
    for (uint64_t i = 0; i < d.number[k]; ++i)
      out.push_back({d.textStart + d.offset[k] + 4 * i, d.counts[d.firstCount[k] + i]});
  return out;
}
std::unique_ptr<Profile> fromCosts(const Profile& p, const DcpiConvertOptions& o) {
  return dcpiFromModel(*buildModel(p, {}), o);
}
std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
ReadOptions opts() { return {kDefaultMaxPpkMessage, false}; }

// Every .dcpi file in tests/data/dcpi: the three corpus files and the ones generated for this
// project (see tests/data/PROVENANCE.md).
const char* kFiles[] = {"small",     "medium",      "padded-unknown",     "empty",
                        "one-chunk", "long-chunks", "short-chunks-padded"};
std::string file(const char* name) { return testlib::data(std::string("dcpi/") + name + ".dcpi"); }

// Little-endian uint32 values as bytes.
std::string le(std::initializer_list<uint32_t> values) {
  std::string out;
  for (uint32_t v : values)
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

std::vector<std::string> kLines = {"version pdb-0.7",  "image 1f",     "epoch 9901011200",
                                   "platform alpha",   "event cycles", "period 4096",
                                   "tstart 120000000", "tsize 4096",   "cpuspeed 500"};
std::string header(const std::vector<std::string>& lines = kLines) {
  std::string h;
  for (auto& l : lines) h += l + "\n";
  return h + "samples\n";
}
// kLines with line `i` replaced by `with` ("" = removed).
std::vector<std::string> replaced(size_t i, const std::string& with) {
  std::vector<std::string> l = kLines;
  if (with.empty())
    l.erase(l.begin() + static_cast<long>(i));
  else
    l[i] = with;
  return l;
}
std::string emptyBody() { return le({0, 0}); }

// Expects reading `text` to fail with `status` at `offset` (and `line` unless kUnknown), with
// `needle` in the message.
void expectError(const std::string& text, uint64_t offset, uint64_t line, const std::string& needle,
                 Status status = Status::malformed) {
  try {
    readDcpi(bytes(text));
  } catch (const Error& e) {
    CHECK_EQ(static_cast<int>(e.status()), static_cast<int>(status));
    CHECK_EQ(e.format(), std::string("dcpi"));
    CHECK_EQ(e.offset(), offset);
    CHECK_EQ(e.line(), line);
    CHECK_CONTAINS(e.what(), needle);
    return;
  }
  throw testlib::Failure{"expected an error containing: " + needle};
}

void roundTrip(const std::string& original) {
  auto first = readProfile(bytes(original), opts());
  std::string ppk = writeProfile(*first, FormatId::ppk, {});
  auto fromPpk = readProfile(bytes(ppk), opts());
  CHECK(equalIR(*first, *fromPpk));
  std::string back = writeProfile(*fromPpk, FormatId::dcpi, {});
  CHECK(back == original);
  auto second = readProfile(bytes(back), opts());
  CHECK(equalIR(*first, *second));
}

// The `--dump` output of dcpi_gen.py: header lines (right-trimmed), "offset count" for every
// nonzero count (offset from tstart), then "footer addresses samples".
struct Dump {
  std::vector<std::string> header;
  std::vector<std::pair<uint64_t, uint64_t>> samples;
  uint64_t footerAddresses = 0, footerSamples = 0;
};
Dump readDump(const std::string& path) {
  Dump d;
  std::istringstream in(testlib::slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("header ")) {
      d.header.push_back(line.substr(7));
    } else if (line.starts_with("footer ")) {
      std::istringstream f(line.substr(7));
      f >> d.footerAddresses >> d.footerSamples;
    } else {
      std::istringstream f(line);
      uint64_t off = 0, count = 0;
      f >> std::hex >> off >> std::dec >> count;
      d.samples.emplace_back(off, count);
    }
  }
  return d;
}
}  // namespace

TEST(detects_dcpi) {
  for (const char* f : kFiles)
    CHECK(detectFormat(bytes(testlib::slurp(file(f)))) == FormatId::dcpi);
}

TEST(round_trips_are_byte_identical_and_ir_equal) {
  for (const char* f : kFiles) roundTrip(testlib::slurp(file(f)));
}

TEST(ir_matches_the_reference_dump) {
  for (const char* f : kFiles) {
    std::string text = testlib::slurp(file(f));
    auto p = readDcpi(bytes(text));
    Dump want = readDump(testlib::data(std::string("dcpi/") + f + ".expected.txt"));
    auto root = p->root();
    CHECK(root.getFormat() == ir::Format::DCPI);
    auto image = root.getImages()[0];
    // Header lines in order, as written (the dump trims trailing blanks).
    auto lines = image.getHeaderLines();
    CHECK_EQ(lines.size(), want.header.size());
    for (unsigned i = 0; i < lines.size(); ++i) {
      std::string t = lines[i].getText().cStr();
      while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
      CHECK_EQ(t, want.header[i]);
      if (lines[i].getKey() == "version")
        CHECK_EQ(std::string(root.getFormatVersion().cStr()),
                 std::string(lines[i].getValue().cStr()));
    }
    // Samples per address.
    auto got = dcpiSamplesByAddress(imageOf(*p));
    CHECK_EQ(got.size(), want.samples.size());
    const uint64_t tstart = image.getTextStart();
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK_EQ(got[i].address - tstart, want.samples[i].first);
      CHECK_EQ(got[i].samples, want.samples[i].second);
    }
    Totals t = totalsOf(imageOf(*p));
    CHECK_EQ(t.addressesWithSamples, want.footerAddresses);
    CHECK_EQ(t.samples & 0xffffffffu, want.footerSamples);
    CHECK_EQ(image.getFooterAddresses(), want.footerAddresses);
    CHECK_EQ(image.getFooterSamples(), want.footerSamples);
  }
}

TEST(unknown_lines_padding_and_terminator_are_kept) {
  auto p = readDcpi(bytes(testlib::slurp(file("short-chunks-padded"))));
  auto lines = p->root().getImages()[0].getHeaderLines();
  CHECK_EQ(lines.size(), 13u);
  CHECK_EQ(std::string(lines[11].getText().cStr()), "compiler gem-3.2");
  CHECK_EQ(std::string(lines[12].getKey().cStr()), "cpu.flags");
  CHECK_EQ(std::string(lines[12].getValue().cStr()), "fp bwx  cix");
  CHECK_EQ(std::string(lines[12].getText().cStr()), "cpu.flags fp bwx  cix  ");  // padding
  // Blanks after `samples`, tabs as separators and repeated optional lines are kept too.
  std::string text =
      "version\tpdb-0.6\n" + header(std::vector<std::string>(kLines.begin() + 1, kLines.end()));
  text.insert(text.find("samples"), "path /x\npath\t /y\n");
  text.replace(text.find("samples\n"), 8, "samples \t \n");
  text += emptyBody();
  auto q = readDcpi(bytes(text));
  auto img = q->root().getImages()[0];
  CHECK_EQ(std::string(img.getTerminator().cStr()), std::string("samples \t "));
  CHECK_EQ(std::string(q->root().getFormatVersion().cStr()), std::string("pdb-0.6"));
  CHECK_EQ(std::string(img.getHeaderLines()[10].getValue().cStr()), std::string("/y"));
  CHECK(writeDcpi(*q) == text);
  roundTrip(text);
  // Any byte but a newline may stand in a value, a NUL included.
  std::string nul = header();
  nul.insert(nul.find("samples"), std::string("note a\0b\x80\n", 10));
  nul += emptyBody();
  roundTrip(nul);
}

TEST(adjacent_chunks_and_wrapping_footer_are_valid) {
  // Chunk 2 starts exactly where chunk 1 ends (0x10 + 4*1); the samples wrap past 2^32.
  std::string text = header() + le({0x10, 1, 0xffffffffu, 0x14, 2, 2, 0, 2, 1});
  auto p = readDcpi(bytes(text));
  Totals t = totalsOf(imageOf(*p));
  CHECK_EQ(t.chunks, 2u);
  CHECK_EQ(t.addresses, 3u);
  CHECK_EQ(t.addressesWithSamples, 2u);
  CHECK_EQ(t.samples, uint64_t{0xffffffffu} + 2);
  roundTrip(text);
}

TEST(queries_per_address_chunk_and_top) {
  std::string text = header() + le({0x10, 2, 5, 0, 0x40, 3, 1, 9, 5, 4, 20});
  auto p = readDcpi(bytes(text));
  const uint64_t base = 0x120000000;
  auto all = everyAddress(imageOf(*p));
  CHECK_EQ(all.size(), 5u);
  CHECK_EQ(all[1].address, base + 0x14);
  CHECK_EQ(all[1].samples, 0u);
  CHECK_EQ(all[4].address, base + 0x48);
  auto nz = dcpiSamplesByAddress(imageOf(*p));
  CHECK_EQ(nz.size(), 4u);
  auto chunks = chunksOf(imageOf(*p));
  CHECK_EQ(chunks.size(), 2u);
  CHECK_EQ(chunks[0].offset, 0x10u);
  CHECK_EQ(chunks[0].address, base + 0x10);
  CHECK_EQ(chunks[0].samples, 5u);
  CHECK_EQ(chunks[0].addresses, 1u);
  CHECK_EQ(chunks[1].number, 3u);
  CHECK_EQ(chunks[1].samples, 15u);
  // The model: one function per address with samples, ranked by samples.
  auto model = buildModel(*p, {});
  auto top = model->top(0, false, 2);
  CHECK_EQ(top.size(), 2u);
  CHECK_EQ(model->function(top[0]).name, std::string("0x120000044"));
  CHECK_EQ(model->function(top[1]).name, std::string("0x120000010"));  // tie 5/5 with 0x48
  CHECK_EQ(model->top(0, false, 100).size(), 4u);
  CHECK_EQ(model->inclusive(top[0], 0), 9u);  // no calls: inclusive is self
  const LocationLayer& at = model->locations();
  CHECK_EQ(at.locations.size(), 4u);
  CHECK_EQ(at.locations[0].address, base + 0x10);
  CHECK_EQ(at.self[0], 5u);
  CHECK_EQ(at.mappings.size(), 1u);
  CHECK_EQ(at.mappings[0].start, base);
  CHECK_EQ(at.mappings[0].limit, base + 0x4c);
}

TEST(summary_reports_chunks_event_and_image) {
  auto p = readDcpi(bytes(testlib::slurp(file("small"))));
  Summary s = buildModel(*p, {})->summary();
  CHECK_EQ(s.formatVersion, std::string("pdb-0.6"));
  CHECK_EQ(s.records, 5u);
  CHECK_EQ(s.objects, 1u);
  auto gModel = buildModel(*p, {});
  const Model& g = *gModel;
  CHECK_EQ(g.events(), 1u);
  CHECK_EQ(g.eventNames()[0], std::string("cycles"));
  CHECK_EQ(g.total(0), totalsOf(imageOf(*p)).samples);
  CHECK_EQ(g.total(0), 1301974u);
}

// ---- Conversion from per-instruction costs.

namespace {
// A Callgrind-like IR built directly: positions instr+line, events Ir and Dr, objects
// /lib/b.so and /bin/a, one call row (inclusive cost, skipped) and a second part.
std::unique_ptr<Profile> costProfile(uint64_t bigCost = 7) {
  StringInterner strings;
  ContextTable contexts;
  uint64_t a = strings.intern("/bin/a"), b = strings.intern("/lib/b.so");
  uint64_t f = strings.intern("x.c"), main = strings.intern("main"), g = strings.intern("g");
  uint64_t ca = contexts.get(a, f, main), cb = contexts.get(b, f, g);
  CostTableBuilder t1(2), t2(2);
  auto row = [](CostTableBuilder& t, uint64_t ctx, uint64_t addr, std::vector<uint64_t> costs) {
    uint64_t pos[2] = {addr, 10};
    t.row(ir::RecordKind::COST, ctx, 0, pos, costs.data(), costs.size());
  };
  row(t1, cb, 0x2000, {3, 1});
  row(t1, ca, 0x1001, {bigCost, 2});  // slot 0x1000
  row(t1, ca, 0x1003, {1, 0});        // slot 0x1000: summed with the row above
  row(t1, ca, 0x1004, {0, 0});        // slot 0x1004, present with 0
  {
    uint64_t pos[2] = {0x1004, 10}, tpos[2] = {0x2000, 1}, c[2] = {100, 100};
    t1.row(ir::RecordKind::CALL, ca, 0, pos, c, 2, cb, tpos, 1);
  }
  row(t2, ca, 0x1010, {5});  // a gap: new chunk; only Ir given (Dr is 0)
  row(t2, cb, 0x2008, {4, 4});
  auto message = newMessage();
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::CALLGRIND);
  root.setFormatVersion("1");
  std::vector<bool> used(strings.size(), false);
  contexts.markUsed(used);
  std::vector<uint64_t> remap = strings.sortAndCompact(used);
  strings.build(root.initStrings());
  auto ev = root.initEvents(2);
  ev[0].setName("Ir");
  ev[1].setName("Dr");
  auto kinds = root.initPositionKinds(2);
  kinds.set(0, ir::PositionKind::INSTR);
  kinds.set(1, ir::PositionKind::LINE);
  contexts.build(root.initContexts(), remap);
  auto parts = root.initParts(2);
  t1.build(parts[0].initCosts(), remap);
  t2.build(parts[1].initCosts(), remap);
  return std::make_unique<Profile>(std::move(message));
}

std::string headerValue(ir::ImageHistogram::Reader image, const char* key) {
  for (auto l : image.getHeaderLines())
    if (l.getKey() == key) return l.getValue().cStr();
  return "<absent>";
}
}  // namespace

TEST(costs_become_one_image_per_object) {
  auto src = costProfile();
  auto p = fromCosts(*src, {});
  auto images = p->root().getImages();
  CHECK_EQ(images.size(), 2u);
  CHECK_EQ(std::string(p->root().getFormatVersion().cStr()), "pdb-0.7");
  // Object name order: /bin/a, then /lib/b.so.
  CHECK_EQ(headerValue(images[0], "path"), std::string("/bin/a"));
  CHECK_EQ(headerValue(images[1], "path"), std::string("/lib/b.so"));
  CHECK_EQ(headerValue(images[0], "event"), std::string("Ir"));
  CHECK_EQ(headerValue(images[0], "tstart"), std::string("1000"));
  CHECK_EQ(headerValue(images[0], "tsize"), std::string("20"));  // 0x1000 .. 0x1014
  CHECK_EQ(headerValue(images[0], "period"), std::string("1"));
  CHECK_EQ(headerValue(images[0], "epoch"), std::string("7001010000"));
  auto chunks = chunksOf(imageOf(*p, 0));
  CHECK_EQ(chunks.size(), 2u);
  CHECK_EQ(chunks[0].offset, 0u);
  CHECK_EQ(chunks[0].number, 2u);
  CHECK_EQ(chunks[0].samples, 8u);  // 7 + 1 in slot 0x1000, 0 in 0x1004; the call is skipped
  CHECK_EQ(chunks[1].offset, 0x10u);
  CHECK_EQ(chunks[1].samples, 5u);
  auto addr = everyAddress(imageOf(*p, 0));
  CHECK_EQ(addr.size(), 3u);
  CHECK_EQ(addr[1].address, 0x1004u);
  CHECK_EQ(addr[1].samples, 0u);
  auto b = chunksOf(imageOf(*p, 1));
  CHECK_EQ(b.size(), 2u);  // 0x2000 and 0x2008: the slot between has no row, so two chunks
  CHECK_EQ(b[1].offset, 8u);
  CHECK_EQ(b[1].samples, 4u);
}

TEST(converted_images_are_valid_dcpi_files) {
  auto src = costProfile();
  std::vector<std::string> files;
  for (const char* index : {"0", "1"}) {
    WriteOptions wo;
    wo.setString(kDcpiImage, index);
    files.push_back(writeProfile(*src, FormatId::dcpi, wo));
  }
  for (auto& f : files) {
    CHECK_EQ(f.find("samples\n") % 4, 0u);  // header padded: binary part 4-byte aligned
    CHECK(detectFormat(bytes(f)) == FormatId::dcpi);
    roundTrip(f);
  }
  CHECK_CONTAINS(files[1], "path /lib/b.so");
  // writeDcpi selects by path or index; without a selection it lists the images.
  auto model = buildModel(*src, {});
  CHECK(writeDcpi(*model, "/lib/b.so") == files[1]);
  CHECK(writeDcpi(*model, "0") == files[0]);
  try {
    writeDcpi(*model);
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == Status::invalidArgument);
    CHECK_CONTAINS(e.what(), "0: /bin/a");
    CHECK_CONTAINS(e.what(), "1: /lib/b.so");
  }
  // Through .ppk the converted profile keeps both images.
  auto p = fromCosts(*src, {});
  auto back = readProfile(bytes(writeProfile(*p, FormatId::ppk, {})), opts());
  CHECK(equalIR(*p, *back));
  CHECK(writeDcpi(*back, "1") == files[1]);
  Summary s = buildModel(*p, {})->summary();
  CHECK_EQ(s.objects, 2u);
  CHECK_EQ(s.records, 4u);
  auto gModel = buildModel(*p, {});
  const Model& g = *gModel;
  CHECK_EQ(g.events(), 1u);
  CHECK_EQ(g.eventNames()[0], std::string("Ir"));
  CHECK_EQ(g.total(0), 7u + 1 + 5 + 3 + 4);
}

TEST(conversion_options_and_limits) {
  auto src = costProfile();
  DcpiConvertOptions o;
  o.event = "Dr";
  o.platform = "x86_64-linux";
  o.cpuspeed = 2400;
  auto p = fromCosts(*src, o);
  auto image = p->root().getImages()[0];
  CHECK_EQ(headerValue(image, "event"), std::string("Dr"));
  CHECK_EQ(headerValue(image, "platform"), std::string("x86_64-linux"));
  CHECK_EQ(headerValue(image, "cpuspeed"), std::string("2400"));
  CHECK_EQ(totalsOf(imageOf(*p, 0)).samples, 2u);
  o.event = "Bc";
  try {
    fromCosts(*src, o);
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == Status::invalidArgument);
    CHECK_CONTAINS(e.what(), "its events: Ir, Dr");
  }
  // A slot whose cost exceeds 32 bits.
  try {
    fromCosts(*costProfile(0xffffffffull), {});
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == Status::limit);
    CHECK_CONTAINS(e.what(), "address 0x1000");
  }
  // No instruction positions (Cachegrind): nothing to convert.
  auto cg = readProfile(bytes(testlib::slurp(testlib::data("cachegrind/cachegrind.workload.out"))),
                        opts());
  try {
    writeProfile(*cg, FormatId::dcpi, {});
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.status() == Status::unsupported);
    CHECK_CONTAINS(e.what(), "instr");
  }
}

// ---- Bad input: every error names its byte offset (and header line).

TEST(error_header_without_terminator) {
  std::string h = header();
  std::string noTerm = h.substr(0, h.find("samples"));
  expectError(noTerm, noTerm.size(), 10, "ends without its terminator");
  expectError(noTerm + "samples", noTerm.size(), 10, "found 'samples' and no newline");
  expectError("", 0, 1, "ends without its terminator");
}
TEST(error_missing_required_lines) {
  std::string h = header(replaced(7, ""));  // no tsize
  expectError(h + emptyBody(), h.find("samples"), 9, "missing required header line(s): tsize");
  std::string only = "version pdb-0.7\nsamples\n" + emptyBody();
  expectError(only, 16, 2, "image, epoch, platform, event, period, tstart, tsize, cpuspeed");
}
TEST(error_repeated_required_line) {
  auto lines = kLines;
  lines.push_back("period 8192");
  std::string h = header(lines);
  expectError(h + emptyBody(), h.find("period 8192"), 10,
              "repeated header line 'period': expected exactly one");
}
TEST(error_malformed_header_lines) {
  auto at = [&](const std::string& text, const std::string& needle) { return text.find(needle); };
  std::string t = header(replaced(3, ""));
  t.insert(at(t, "event"), "\n");
  expectError(t + emptyBody(), at(t, "\nevent"), 4, "found an empty line");
  t = header(replaced(3, " platform alpha"));
  expectError(t + emptyBody(), at(t, " platform"), 4, "found ' platform alpha'");
  t = header(replaced(3, "platform"));
  expectError(t + emptyBody(), at(t, "platform"), 4, "'platform' has no value");
  t = header(replaced(3, "platform   "));
  expectError(t + emptyBody(), at(t, "platform"), 4, "'platform' has no value");
  t = header(replaced(1, "image 12g4"));
  expectError(t + emptyBody(), at(t, "12g4"), 2, "'image': expected hexadecimal digits");
  t = header(replaced(6, "tstart 0x120000000"));
  expectError(t + emptyBody(), at(t, "0x12"), 7, "'tstart': expected hexadecimal digits");
  t = header(replaced(6, "tstart 10000000000000000"));
  expectError(t + emptyBody(), at(t, "10000"), 7, "at most 64 bits");
  t = header(replaced(5, "period 4k"));
  expectError(t + emptyBody(), at(t, "4k"), 6, "'period': expected decimal digits");
  t = header(replaced(2, "epoch 99010112"));
  expectError(t + emptyBody(), at(t, "99010112"), 3, "YYMMDDHHMM or YYYYMMDDHHMMSS");
  t = header(replaced(0, "version 0.7"));
  expectError(t + emptyBody(), 8, 1, "expected pdb-<major>.<minor>, found '0.7'");
  t = header(replaced(0, "version pdb-0."));
  expectError(t + emptyBody(), 8, 1, "expected pdb-<major>.<minor>");
  t = header();
  t.replace(at(t, "samples"), 7, "samples 12");
  expectError(t + emptyBody(), at(t, "12\n"), 10, "followed only by blanks, found 'samples 12'");
}
TEST(error_major_version_1_is_unsupported) {
  std::string t = header(replaced(0, "version pdb-1.01")) + emptyBody();
  expectError(t, 0, 1,
              "major version 1 is recognised but not supported: its binary layout is undocumented",
              Status::unsupported);
  t = header(replaced(4, "version pdb-2.0"));
  t = t.substr(t.find('\n') + 1);  // drop the 0.7 line: version now on line 4
  expectError(t + emptyBody(), t.find("version"), 4, "major version 2 is unknown",
              Status::unsupported);
}
TEST(error_binary_part_too_short_for_the_footer) {
  std::string h = header();
  expectError(h, h.size(), kUnknown, "expected the 8-byte footer after the header, found 0 bytes");
  expectError(h + le({0}), h.size(), kUnknown, "found 4 bytes");
}
TEST(error_truncated_chunk_header) {
  std::string h = header();
  expectError(h + le({0, 0, 0}), h.size(), kUnknown,
              "expected a chunk (8 bytes of offset and number) or the 8-byte footer, found 12");
  // Garbage after a chunk: 12 bytes left where the 8-byte footer should be.
  expectError(h + le({0, 1, 1, 7, 1, 1}), h.size() + 12, kUnknown, "found 12 bytes");
}
TEST(error_chunk_with_no_counts) {
  std::string h = header();
  expectError(h + le({0x40, 0, 0, 0}), h.size() + 4, kUnknown,
              "chunk at offset 0x40 has number 0 (expected at least one count");
}
TEST(error_chunk_counts_beyond_the_data) {
  std::string h = header();
  expectError(h + le({0, 5, 1, 1, 0, 0}), h.size() + 4, kUnknown,
              "has 5 counts: expected 20 bytes of counts before the 8-byte footer, found 8");
  // A huge number is checked against the bytes left before anything is allocated.
  expectError(h + le({0, 0xffffffffu, 1, 1}), h.size() + 4, kUnknown,
              "expected 17179869180 bytes of counts");
}
TEST(error_overlapping_or_unordered_chunks) {
  std::string h = header();
  // Chunk 1 covers 0x10..0x18; chunk 2 at 0x14 overlaps it.
  expectError(h + le({0x10, 2, 1, 1, 0x14, 1, 1, 3, 3}), h.size() + 16, kUnknown,
              "expected an offset of at least 0x18 (where the previous chunk's addresses end), "
              "found 0x14");
  // Same offset twice (not strictly increasing).
  expectError(h + le({0x10, 1, 1, 0x10, 1, 1, 2, 2}), h.size() + 12, kUnknown, "at least 0x14");
  // Decreasing offsets.
  expectError(h + le({0x100, 1, 1, 0x10, 1, 1, 2, 2}), h.size() + 12, kUnknown, "found 0x10");
}
TEST(error_footer_disagrees_with_the_counts) {
  std::string h = header();
  expectError(h + le({0, 2, 0, 7, 2, 7}), h.size() + 16, kUnknown,
              "footer: expected 1 addresses with samples (the nonzero counts of the chunks), "
              "found 2");
  expectError(h + le({0, 2, 0, 7, 1, 8}), h.size() + 20, kUnknown,
              "footer: expected 7 total samples (the sum of the counts mod 2^32), found 8");
  // Bytes after a complete file: the last 8 are taken as the footer, so the 4 before them
  // cannot be a chunk.
  expectError(h + le({0, 1, 5, 1, 5, 0xdead}), h.size() + 12, kUnknown, "found 12 bytes");
}
TEST(error_corpus_file_truncated_anywhere_in_the_binary) {
  // Every truncation of a real file fails cleanly with an offset inside the file.
  std::string text = testlib::slurp(file("small"));
  size_t binary = text.find("samples\n") + 8;
  for (size_t n = binary; n < text.size(); ++n) {
    try {
      readDcpi(bytes(text.substr(0, n)));
      throw testlib::Failure{"truncated file accepted at " + std::to_string(n)};
    } catch (const Error& e) {
      CHECK(e.status() == Status::malformed);
      CHECK(e.offset() <= n);
    }
  }
}

TEST(corrupted_bytes_are_read_exactly_or_refused) {
  // Every single-byte corruption of a real file is either read (and then rewritten byte for
  // byte) or refused with a malformed/unsupported error at an offset inside the file.
  const std::string text = testlib::slurp(file("small"));
  for (size_t i = 0; i < text.size(); ++i)
    for (int x : {0x01, 0x80, 0xff}) {
      std::string t = text;
      t[i] = static_cast<char>(t[i] ^ x);
      try {
        auto p = readDcpi(bytes(t));
        CHECK(writeDcpi(*p) == t);
      } catch (const Error& e) {
        CHECK(e.status() == Status::malformed || e.status() == Status::unsupported);
        CHECK(e.offset() <= t.size());
      }
    }
}

TEST(writer_refuses_an_inconsistent_ir) {
  // An IR that breaks the ImageHistogram invariants (e.g. from a damaged .ppk) is refused,
  // never written out of bounds.
  auto p = readDcpi(bytes(testlib::slurp(file("small"))));
  auto expectCorrupt = [](auto edit, const std::string& needle) {
    auto src = readDcpi(bytes(testlib::slurp(file("small"))));
    auto m = newMessage();
    m->setRoot(src->root());
    edit(m->getRoot<ir::Profile>().getImages()[0]);
    Profile bad(std::move(m));
    try {
      writeDcpi(bad);
    } catch (const Error& e) {
      CHECK(e.status() == Status::malformed);
      CHECK_CONTAINS(e.what(), needle);
      return;
    }
    throw testlib::Failure{"expected an error containing: " + needle};
  };
  expectCorrupt(
      [](ir::ImageHistogram::Builder i) { i.getCounts().setCount(i.getCounts().getCount() + 1); },
      "chunk lengths disagree");
  expectCorrupt(
      [](ir::ImageHistogram::Builder i) {
        std::vector<uint64_t> off = decodeColumn(i.asReader().getChunkOffset());
        off[1] = off[0];
        encodeColumn(i.initChunkOffset(), off, ir::Column::Encoding::ZIGZAG_DELTA);
      },
      "overlaps or precedes");
  expectCorrupt([](ir::ImageHistogram::Builder i) { i.setTerminator("sample"); }, "terminator");
  expectCorrupt(
      [](ir::ImageHistogram::Builder i) {
        std::vector<uint64_t> c = decodeColumn(i.asReader().getCounts());
        c[0] = uint64_t{1} << 32;
        encodeColumn(i.initCounts(), c);
      },
      "does not fit in 32 bits");
  CHECK(writeDcpi(*p) == testlib::slurp(file("small")));
}

TEST_MAIN()
