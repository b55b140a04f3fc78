// Lean ONNX reading (onnx_reader.h): the protobuf wire format walked by hand at the two levels
// that hold initializers (ModelProto.graph = 7, GraphProto.initializer = 5), everything else
// parsed by the generated classes.
#include "onnx_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace tilesched::import_internal {

namespace {

// One field of a protobuf message: [begin, end) is the whole field (tag included), payload
// the bytes of a length-delimited value.
struct WireField {
  uint32_t number = 0;
  int wire_type = 0;
  const char* begin = nullptr;
  const char* end = nullptr;
  const char* payload = nullptr;
  size_t payload_size = 0;
};

bool ReadVarint(const char*& p, const char* end, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const auto byte = static_cast<uint8_t>(*p++);
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) return true;
  }
  return false;
}

// Reads the field at `p`; false on malformed input.
bool NextField(const char*& p, const char* end, WireField* f) {
  f->begin = p;
  uint64_t tag = 0;
  if (!ReadVarint(p, end, &tag)) return false;
  f->number = static_cast<uint32_t>(tag >> 3);
  f->wire_type = static_cast<int>(tag & 7);
  f->payload = nullptr;
  f->payload_size = 0;
  uint64_t value = 0;
  switch (f->wire_type) {
    case 0:
      if (!ReadVarint(p, end, &value)) return false;
      break;
    case 1:
      if (end - p < 8) return false;
      p += 8;
      break;
    case 2:
      if (!ReadVarint(p, end, &value) || value > static_cast<uint64_t>(end - p)) return false;
      f->payload = p;
      f->payload_size = static_cast<size_t>(value);
      p += value;
      break;
    case 5:
      if (end - p < 4) return false;
      p += 4;
      break;
    default:
      return false;
  }
  f->end = p;
  return f->number != 0;
}

constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
// TensorProto payloads: float_data, int32_data, string_data, int64_data, raw_data,
// double_data, uint64_data.
bool IsTensorPayload(uint32_t number) {
  return number == 4 || number == 5 || number == 6 || number == 7 || number == 9 || number == 10 ||
         number == 11;
}

Status Malformed() { return Status::Error("model: not a readable ONNX file (truncated, or not ONNX)"); }

// Parses a message of type M from [p, end), every field kept except those `take` consumes
// (it returns true for them, or an error).
template <typename M, typename Take>
Result<M> ParseExcept(const char* p, const char* end, Take take) {
  std::string kept;
  WireField f;
  while (p < end) {
    if (!NextField(p, end, &f)) return Malformed();
    auto taken = take(f);
    if (!taken.ok()) return taken.status();
    if (!*taken) kept.append(f.begin, f.end);
  }
  M message;
  if (!message.ParseFromString(kept)) return Malformed();
  return message;
}

Result<onnx::TensorProto> ParseTensorLean(const char* p, const char* end) {
  return ParseExcept<onnx::TensorProto>(p, end, [](const WireField& f) -> Result<bool> {
    return IsTensorPayload(f.number) && f.payload_size > kKeptPayloadBytes;  // dropped
  });
}

Result<onnx::GraphProto> ParseGraphLean(const char* p, const char* end) {
  std::vector<onnx::TensorProto> initializers;
  auto graph = ParseExcept<onnx::GraphProto>(p, end, [&](const WireField& f) -> Result<bool> {
    if (f.number != kGraphInitializer || f.wire_type != 2) return false;
    auto tensor = ParseTensorLean(f.payload, f.payload + f.payload_size);
    if (!tensor.ok()) return tensor.status();
    initializers.push_back(std::move(tensor).value());
    return true;
  });
  if (!graph.ok()) return graph;
  for (auto& t : initializers) graph.value().add_initializer()->Swap(&t);
  return graph;
}

}  // namespace

Result<onnx::ModelProto> ParseOnnxModel(const char* data, size_t size) {
  std::optional<onnx::GraphProto> graph;
  auto model = ParseExcept<onnx::ModelProto>(data, data + size, [&](const WireField& f) -> Result<bool> {
    if (f.number != kModelGraph || f.wire_type != 2) return false;
    auto g = ParseGraphLean(f.payload, f.payload + f.payload_size);
    if (!g.ok()) return g.status();
    graph = std::move(g).value();
    return true;
  });
  if (!model.ok()) return model;
  if (graph) model.value().mutable_graph()->Swap(&*graph);
  return model;
}

Result<onnx::ModelProto> ReadOnnxModel(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return Status::Error(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    // The same words as ReadFile's (file_util.h) for the common case.
    return Status::Error(path + (S_ISDIR(st.st_mode) ? ": is a directory, expected a file"
                                                      : ": not a regular file"));
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    close(fd);
    return ParseOnnxModel("", 0);
  }
  // Mapped, not read: the pages of skipped payloads are never touched.
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return Status::Error(path + ": cannot map (" + std::strerror(errno) + ")");
  auto model = ParseOnnxModel(static_cast<const char*>(map), size);
  munmap(map, size);
  return model;
}

bool TensorDataAbsent(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return true;
  int64_t elements = 1;
  for (int64_t d : t.dims()) elements *= d;
  if (elements == 0) return false;
  return !t.has_raw_data() && t.float_data_size() == 0 && t.int32_data_size() == 0 && t.int64_data_size() == 0 &&
         t.double_data_size() == 0 && t.uint64_data_size() == 0 && t.string_data_size() == 0;
}

namespace {

constexpr uint32_t kNodeMetadataProps = 9;  // NodeProto.metadata_props (ONNX 1.16)

// "['', 'm', 'm.h.0.attn', 'matmul']" -> {"", "m", "m.h.0.attn", "matmul"}.
std::vector<std::string> ParsePythonStringList(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while ((i = text.find_first_of("'\"", i)) != std::string::npos) {
    const char quote = text[i];
    const size_t close = text.find(quote, i + 1);
    if (close == std::string::npos) break;
    out.push_back(text.substr(i + 1, close - i - 1));
    i = close + 1;
  }
  return out;
}

}  // namespace

std::string ModelNodeName(const onnx::NodeProto& node, int index) {
  const auto& unknown = node.unknown_fields();
  for (int i = 0; i < unknown.field_count(); ++i) {
    const auto& field = unknown.field(i);
    if (field.number() != static_cast<int>(kNodeMetadataProps) ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      continue;
    }
    onnx::StringStringEntryProto entry;
    if (!entry.ParseFromString(field.length_delimited()) || entry.key() != "pkg.torch.onnx.name_scopes") continue;
    const std::vector<std::string> scopes = ParsePythonStringList(entry.value());
    if (scopes.size() >= 2 && !scopes[scopes.size() - 2].empty()) {
      return scopes[scopes.size() - 2] + "/" + scopes.back();
    }
    if (!scopes.empty() && !scopes.back().empty()) return scopes.back();
  }
  if (!node.name().empty()) return node.name();
  return "#" + std::to_string(index);
}

}  // namespace tilesched::import_internal
