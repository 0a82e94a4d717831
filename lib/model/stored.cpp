#include "model/stored.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <profpack/profpack.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "error.h"
#include "ir/column.h"
#include "stored.capnp.h"

namespace profpack {

namespace {

constexpr size_t kMaxList = (size_t{1} << 29) - 1;  // Cap'n Proto's longest list

// Each distinct string once, index 0 the empty string.
class Interner {
 public:
  Interner() { list_.emplace_back(""); }
  uint32_t operator()(std::string_view s) {
    if (s.empty()) return 0;
    auto [it, added] = index_.try_emplace(s, static_cast<uint32_t>(list_.size()));
    if (added) list_.push_back(s);
    return it->second;
  }
  const std::vector<std::string_view>& list() const { return list_; }

 private:
  std::unordered_map<std::string_view, uint32_t> index_;
  std::vector<std::string_view> list_;
};

template <class T, class List>
void put(List list, const std::vector<T>& v) {
  for (size_t i = 0; i < v.size(); ++i) list.set(static_cast<unsigned>(i), v[i]);
}

// The per-function columns, decoded and checked against each other and the string table.
// Status::malformed on a defect (ColumnCursor's, or one of these).
struct Columns {
  std::vector<uint64_t> name, file, object, line, self, inclusive, calls, unnamed;
};
Columns decodeColumns(stored::Model::Reader m) {
  const size_t strings = m.getStrings().size(), ne = m.getEventNames().size();
  auto bad = [](const std::string& what) { throw Error(Status::malformed, "ppk", what); };
  // Each column is checked to declare the values it must hold before it is decoded, and to use
  // an encoding the writer uses (at most one value per byte): nothing is allocated beyond the
  // message's own size.
  auto decode = [&](ir::Column::Reader column, uint64_t want, const char* what) {
    using Encoding = ir::Column::Encoding;
    if (column.getEncoding() != Encoding::VARINT && column.getEncoding() != Encoding::ZIGZAG_DELTA)
      bad(std::string(what) + " uses an encoding a stored layer does not");
    if (column.getCount() != want)
      bad(std::string(what) + " holds " + std::to_string(column.getCount()) + " values, expected " +
          std::to_string(want));
    try {
      return decodeColumn(column);
    } catch (const Error& e) {  // named, since the column's own message does not say which
      bad(std::string(what) + ": " + e.message());
    }
    return std::vector<uint64_t>{};
  };
  auto indexes = [&](ir::Column::Reader column, uint64_t want, const char* what) {
    std::vector<uint64_t> v = decode(column, want, what);
    for (uint64_t i : v)
      if (i >= strings)
        bad(std::string(what) + " holds " + std::to_string(i) + ", not below " +
            std::to_string(strings));
    return v;
  };
  Columns c;
  // functionName gives the number of functions; its count is bounded by its bytes (a value
  // takes one at least), which decodeColumn checks before it allocates.
  const uint64_t nf = m.getFunctionName().getCount();
  c.name = indexes(m.getFunctionName(), nf, "functionName");
  c.file = indexes(m.getFunctionFile(), nf, "functionFile");
  c.object = indexes(m.getFunctionObject(), nf, "functionObject");
  c.line = decode(m.getFunctionLine(), nf, "functionLine");
  c.unnamed = decode(m.getFunctionUnnamed(), m.getFunctionUnnamed().getCount() == 0 ? 0 : nf,
                     "functionUnnamed");
  uint64_t cells = 0;  // nf * ne, checked: both come from the message
  if (__builtin_mul_overflow(nf, uint64_t{ne}, &cells)) bad("more cost cells than can be held");
  c.self = decode(m.getSelf(), cells, "self");
  c.inclusive = decode(m.getInclusive(), cells, "inclusive");
  c.calls = decode(m.getCalls(), m.getCalls().getCount() == 0 ? 0 : nf, "calls");
  return c;
}

// Each string's bytes found once (a list element costs a segment lookup).
std::vector<std::string_view> textsOf(stored::Model::Reader m) {
  std::vector<std::string_view> text;
  text.reserve(m.getStrings().size());
  for (capnp::Text::Reader t : m.getStrings()) text.emplace_back(t.cStr(), t.size());
  return text;
}

// The stored function layer (checked by checkStoredModel), its call edges left to the source's
// edges().
void decodeLayer(stored::Model::Reader m, FunctionLayer& out) {
  const std::vector<std::string_view> text = textsOf(m);
  auto str = [&](uint64_t i) { return std::string(text[i]); };
  for (uint32_t s : m.getEventNames()) out.eventNames.push_back(str(s));
  for (uint32_t s : m.getEventLongNames()) out.eventLongNames.push_back(str(s));
  out.unitsPerSecond = m.getUnitsPerSecond();
  for (double d : m.getEventUnitsPerSecond()) out.eventUnitsPerSecond.push_back(d);
  out.samplePeriodNanos = m.getSamplePeriodNanos();
  out.timelineUnitsPerSecond = m.getTimelineUnitsPerSecond();
  for (uint64_t v : m.getEventPeriods()) out.eventPeriods.push_back(v);
  for (uint64_t v : m.getBaseTotals()) out.baseTotals.push_back(v);
  auto pid = m.getThreadPid(), tid = m.getThreadId(), process = m.getThreadProcess();
  auto threadName = m.getThreadName();
  for (unsigned i = 0; i < pid.size(); ++i)
    out.threads.push_back({pid[i], tid[i], str(process[i]), str(threadName[i])});
  Columns c = decodeColumns(m);
  out.functions.reserve(c.name.size());
  for (size_t i = 0; i < c.name.size(); ++i)
    out.functions.push_back({str(c.name[i]), str(c.file[i]), str(c.object[i]), c.line[i],
                             i < c.unnamed.size() && c.unnamed[i] != 0});
  out.self = std::move(c.self);
  out.inclusive = std::move(c.inclusive);
  out.calls = std::move(c.calls);
  out.edgesLater = true;
  auto key = m.getDescriptionKey(), value = m.getDescriptionValue();
  for (unsigned i = 0; i < key.size(); ++i)
    out.description.emplace_back(str(key[i]), str(value[i]));
}

Summary decodeSummary(stored::Summary::Reader s) {
  Summary out;
  out.formatVersion = s.getFormatVersion().cStr();
  out.parts = s.getParts();
  out.records = s.getRecords();
  out.functions = s.getFunctions();
  out.files = s.getFiles();
  out.objects = s.getObjects();
  out.strings = s.getStrings();
  return out;
}

class StoredSource : public ModelSource {
 public:
  StoredSource(std::shared_ptr<const kj::Array<capnp::word>> words,
               std::function<std::unique_ptr<ModelSource>()> make)
      : words_(std::move(words)),
        reader_(std::make_unique<capnp::FlatArrayMessageReader>(words_->asPtr(),
                                                                checkedMessageOptions())),
        make_(std::move(make)) {}

  uint32_t capabilities() const override { return root().getCapabilities(); }
  void functions(FunctionLayer& out) override { decodeLayer(root(), out); }
  Summary summary() override { return decodeSummary(root().getSummary()); }
  void lines(std::unordered_map<std::string, std::vector<LineCost>>& out) override {
    inner().lines(out);
  }
  void edges(FunctionLayer& out) override {
    inner();
    out.edges = std::move(own_.edges);
    out.edgeCosts = std::move(own_.edgeCosts);
    out.rootCalls = std::move(own_.rootCalls);
  }
  void functionLines(FunctionLineLayer& out) override { inner().functionLines(out); }
  void locations(LocationLayer& out) override { inner().locations(out); }
  void stacks(StackLayer& out) override { inner().stacks(out); }
  uint64_t timelineOrigin() override { return inner().timelineOrigin(); }
  void spans(SpanSink& sink) override { inner().spans(sink); }

 private:
  stored::Model::Reader root() const { return reader_->getRoot<stored::Model>(); }
  // The profile's own source, which answers the other layers in the function indexes of its
  // own function layer: that layer must be the stored one.
  ModelSource& inner() {
    if (!inner_) {
      std::unique_ptr<ModelSource> source = make_();
      FunctionLayer& own = own_;
      source->functions(own);
      // Compared as stored (indexes into the strings), without building the stored rows.
      const stored::Model::Reader m = root();
      const std::vector<std::string_view> text = textsOf(m);
      const Columns kept = decodeColumns(m);
      auto events = m.getEventNames();
      bool same =
          own.functions.size() == kept.name.size() && own.eventNames.size() == events.size();
      for (unsigned e = 0; same && e < events.size(); ++e)
        same = own.eventNames[e] == text[events[e]];
      for (size_t f = 0; same && f < own.functions.size(); ++f) {
        const FunctionRow& a = own.functions[f];
        same = a.name == text[kept.name[f]] && a.file == text[kept.file[f]] &&
               a.object == text[kept.object[f]] && a.line == kept.line[f];
      }
      if (!same)
        throw Error(Status::malformed, "ppk",
                    "the function layer stored beside the IR is not the IR's (" +
                        std::to_string(kept.name.size()) + " functions stored, " +
                        std::to_string(own.functions.size()) + " computed)");
      inner_ = std::move(source);
    }
    return *inner_;
  }

  std::shared_ptr<const kj::Array<capnp::word>> words_;
  // A pointer: the reader's destructor may throw, which a ModelSource's may not.
  std::unique_ptr<capnp::FlatArrayMessageReader> reader_;
  std::function<std::unique_ptr<ModelSource>()> make_;
  std::unique_ptr<ModelSource> inner_;
  FunctionLayer own_;  // the inner source's function layer, until edges() hands its edges over
};

}  // namespace

std::string storedModelAuthor() {
  std::string author = "profpack " PROFPACK_VERSION_STRING ", layer ";
  return author + std::to_string(kStoredModelRevision);
}

std::string encodeStoredModel(const Model& model, const Profile& profile) {
  const FunctionLayer& f = model.layer();
  const std::vector<ThreadRow>& threads = model.threads();
  const size_t ne = model.events();
  for (size_t n : {f.functions.size(), threads.size()})
    if (n > kMaxList) return "";
  const Summary& summary = model.summary();

  capnp::MallocMessageBuilder message;
  stored::Model::Builder m = message.initRoot<stored::Model>();
  m.setComputedBy(storedModelAuthor());
  m.setCapabilities(model.capabilities());
  m.setIrFormat(profile.format());
  m.setSignedCosts(profile.signedCosts());
  m.setHasSymbols(profile.hasSymbols());
  Interner intern;
  auto names = [&](auto list, size_t n, auto&& text) {
    for (size_t i = 0; i < n; ++i) list.set(static_cast<unsigned>(i), intern(text(i)));
  };
  names(m.initEventNames(static_cast<unsigned>(ne)), ne,
        [&](size_t i) -> const std::string& { return f.eventNames[i]; });
  names(m.initEventLongNames(static_cast<unsigned>(ne)), ne,
        [&](size_t i) -> const std::string& { return f.eventLongNames[i]; });
  m.setUnitsPerSecond(f.unitsPerSecond);
  put(m.initEventUnitsPerSecond(static_cast<unsigned>(f.eventUnitsPerSecond.size())),
      f.eventUnitsPerSecond);
  m.setSamplePeriodNanos(f.samplePeriodNanos);
  m.setTimelineUnitsPerSecond(f.timelineUnitsPerSecond);
  put(m.initEventPeriods(static_cast<unsigned>(f.eventPeriods.size())), f.eventPeriods);
  put(m.initBaseTotals(static_cast<unsigned>(f.baseTotals.size())), f.baseTotals);

  const auto nt = static_cast<unsigned>(threads.size());
  auto pid = m.initThreadPid(nt), tid = m.initThreadId(nt);
  for (unsigned i = 0; i < nt; ++i) pid.set(i, threads[i].pid), tid.set(i, threads[i].threadId);
  names(m.initThreadProcess(nt), nt,
        [&](size_t i) -> const std::string& { return threads[i].process; });
  names(m.initThreadName(nt), nt, [&](size_t i) -> const std::string& { return threads[i].name; });

  const size_t nf = f.functions.size();
  auto column = [&](ir::Column::Builder out, size_t n, ir::Column::Encoding encoding, auto&& get) {
    ColumnWriter w(encoding);
    for (size_t i = 0; i < n; ++i) w.push(get(i));
    w.build(out);
  };
  using Encoding = ir::Column::Encoding;
  column(m.initFunctionName(), nf, Encoding::ZIGZAG_DELTA,
         [&](size_t i) { return intern(f.functions[i].name); });
  column(m.initFunctionFile(), nf, Encoding::ZIGZAG_DELTA,
         [&](size_t i) { return intern(f.functions[i].file); });
  column(m.initFunctionObject(), nf, Encoding::ZIGZAG_DELTA,
         [&](size_t i) { return intern(f.functions[i].object); });
  column(m.initFunctionLine(), nf, Encoding::VARINT, [&](size_t i) { return f.functions[i].line; });
  if (std::any_of(f.functions.begin(), f.functions.end(),
                  [](const FunctionRow& r) { return r.unnamed; }))
    column(m.initFunctionUnnamed(), nf, Encoding::VARINT,
           [&](size_t i) { return uint64_t{f.functions[i].unnamed}; });
  auto plain = [&](ir::Column::Builder out, const std::vector<uint64_t>& v, size_t n) {
    column(out, n, Encoding::VARINT, [&](size_t i) { return i < v.size() ? v[i] : 0; });
  };
  plain(m.initSelf(), f.self, nf * ne);
  plain(m.initInclusive(), f.inclusive, nf * ne);
  if (!f.calls.empty()) plain(m.initCalls(), f.calls, nf);

  const auto nd = static_cast<unsigned>(f.description.size());
  names(m.initDescriptionKey(nd), nd,
        [&](size_t i) -> const std::string& { return f.description[i].first; });
  names(m.initDescriptionValue(nd), nd,
        [&](size_t i) -> const std::string& { return f.description[i].second; });

  stored::Summary::Builder s = m.initSummary();
  s.setFormatVersion(summary.formatVersion);
  s.setParts(summary.parts);
  s.setRecords(summary.records);
  s.setFunctions(summary.functions);
  s.setFiles(summary.files);
  s.setObjects(summary.objects);
  s.setStrings(summary.strings);

  const std::vector<std::string_view>& list = intern.list();
  if (list.size() > kMaxList) return "";
  auto strings = m.initStrings(static_cast<unsigned>(list.size()));
  for (unsigned i = 0; i < list.size(); ++i)
    strings.set(i, capnp::Text::Reader(list[i].data(), list[i].size()));

  kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
  const auto bytes = words.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

bool checkStoredModel(const kj::Array<capnp::word>& words, uint64_t offset, const char* container) {
  auto bad = [&](const std::string& what) {
    fail(container, offset, kUnknown, "the stored function layer: " + what);
  };
  try {
    capnp::ReaderOptions once;
    once.traversalLimitInWords = 8 * words.size() + 1024;  // each list is read a few times
    capnp::FlatArrayMessageReader reader(words.asPtr(), once);
    stored::Model::Reader m = reader.getRoot<stored::Model>();
    if (m.getComputedBy() != storedModelAuthor()) return false;
    const size_t strings = m.getStrings().size();
    for (auto s : m.getStrings()) s.cStr();  // each a text pointer
    auto indexes = [&](auto list, const char* what) {
      for (uint32_t i : list)
        if (i >= strings)
          bad(std::string(what) + " names string " + std::to_string(i) + " of " +
              std::to_string(strings));
      return size_t{list.size()};
    };
    auto length = [&](size_t got, size_t want, const char* what) {
      if (got != want)
        bad(std::string(what) + " holds " + std::to_string(got) + " values, expected " +
            std::to_string(want));
    };
    const size_t ne = indexes(m.getEventNames(), "an event");
    length(indexes(m.getEventLongNames(), "an event's long name"), ne, "eventLongNames");
    const size_t nt = m.getThreadPid().size();
    length(m.getThreadId().size(), nt, "threadId");
    length(indexes(m.getThreadProcess(), "a thread"), nt, "threadProcess");
    length(indexes(m.getThreadName(), "a thread's name"), nt, "threadName");
    try {
      decodeColumns(m);  // every column, each index checked against the strings
    } catch (const Error& e) {
      bad(e.message());
    }
    const size_t nd = indexes(m.getDescriptionKey(), "a description key");
    length(indexes(m.getDescriptionValue(), "a description value"), nd, "descriptionValue");
    m.getSummary().getFormatVersion();
    for (auto l : {m.getEventPeriods(), m.getBaseTotals()}) (void)l;
    m.getEventUnitsPerSecond();
    return true;
  } catch (const kj::Exception& e) {
    bad(std::string("invalid Cap'n Proto message: ") + e.getDescription().cStr());
  }
  return false;
}

std::unique_ptr<ModelSource> storedModelSource(std::shared_ptr<const kj::Array<capnp::word>> words,
                                               std::function<std::unique_ptr<ModelSource>()> make) {
  return std::make_unique<StoredSource>(std::move(words), std::move(make));
}

bool storedProfileBasics(const kj::Array<capnp::word>& words, Profile::Basics& out) {
  capnp::FlatArrayMessageReader reader(words.asPtr(), checkedMessageOptions());
  const stored::Model::Reader m = reader.getRoot<stored::Model>();
  out.format = m.getIrFormat();
  out.signedCosts = m.getSignedCosts();
  out.hasSymbols = m.getHasSymbols();
  return out.format != ir::Format::UNKNOWN;
}

uint32_t storedCapabilities(const Profile& profile) {
  if (!profile.storedModel() || profile.hasSymbols()) return 0;
  capnp::FlatArrayMessageReader reader(profile.storedModel()->asPtr(), checkedMessageOptions());
  return reader.getRoot<stored::Model>().getCapabilities();
}

std::unique_ptr<ModelSource> sourceWithStoredModel(
    const Profile& profile, const ModelOptions& options,
    const std::function<std::unique_ptr<ModelSource>()>& own) {
  if (profile.storedModel() && options.thread < 0 && options.tags.empty() &&
      options.binary.empty() && options.symbols)
    return storedModelSource(profile.storedModel(), own);
  return own();
}

}  // namespace profpack
