// Executable stand-in for the few MLIR, LLVM and Triton declarations that the generated
// FlagTree verifier glue (alias_spec/generated/MemDescAliasOpVerify.cpp) uses, so that the
// glue can be compiled and run without an LLVM build. Only those members exist, with the
// real signatures' shapes; types and attributes are handles to objects the caller owns (a
// Context here), as in MLIR. The forwarding headers under include/ stand for the real ones.

#ifndef TLE_ALIAS_MLIR_STANDIN_H
#define TLE_ALIAS_MLIR_STANDIN_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <limits>
#include <string>
#include <vector>

namespace llvm {

// A non-owning view of a contiguous array, like llvm::ArrayRef.
template <typename T>
class ArrayRef {
 public:
  ArrayRef() = default;
  ArrayRef(const std::vector<T> &v) : data_(v.data()), size_(v.size()) {}  // NOLINT: implicit
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T &operator[](std::size_t i) const {
    if (i >= size_) std::abort();  // llvm asserts here
    return data_[i];
  }

 private:
  const T *data_ = nullptr;
  std::size_t size_ = 0;
};

// An integer of a given bit width; the value is held sign-extended to int64, which is all a
// width of at most 64 needs (a wider value must fit in int64 here).
class APInt {
 public:
  APInt(unsigned bitWidth, std::int64_t value) : bitWidth_(bitWidth), value_(value) {}
  unsigned getBitWidth() const { return bitWidth_; }
  std::int64_t getSExtValue() const { return value_; }

 private:
  unsigned bitWidth_;
  std::int64_t value_;
};

}  // namespace llvm

namespace mlir {

struct LogicalResult {
  bool ok;
  bool succeeded() const { return ok; }
  bool failed() const { return !ok; }
};
inline LogicalResult success() { return {true}; }
inline LogicalResult failure() { return {false}; }

namespace standin {

// What a Type or Attribute handle points at.
enum class Kind {
  IntOrFloat,      // an integer or float type of `width` bits
  OtherType,       // any other element type (no bit width)
  MemDesc,         // ttg::MemDescType
  SharedSpace,     // #ttg.shared_memory
  TensorSpace,     // #ttng.tensor_memory
  OtherAttr,       // any other attribute
  NVMMA,           // #ttg.nvmma_shared<{swizzlingByteWidth = width, transposed,
                   //   elementBitWidth = value}>
  Swizzled,        // #ttg.swizzled_shared<{order = order}>
  Integer,         // an IntegerAttr holding `value` in `width` bits
};

struct Storage {
  Kind kind = Kind::OtherAttr;
  unsigned width = 0;
  std::int64_t value = 0;
  // MemDesc only.
  std::vector<std::int64_t> shape, allocShape;
  const Storage *elementType = nullptr, *encoding = nullptr, *memorySpace = nullptr;
  bool mutableMemory = false;
  // Layouts only.
  std::vector<unsigned> order;
  bool transposed = false;
};

}  // namespace standin

class Attribute {
 public:
  Attribute() = default;
  explicit Attribute(const standin::Storage *impl) : impl_(impl) {}
  explicit operator bool() const { return impl_ != nullptr; }
  bool operator!() const { return impl_ == nullptr; }
  const standin::Storage *getImpl() const { return impl_; }

 private:
  const standin::Storage *impl_ = nullptr;
};

class Type {
 public:
  Type() = default;
  explicit Type(const standin::Storage *impl) : impl_(impl) {}
  explicit operator bool() const { return impl_ != nullptr; }
  bool operator!() const { return impl_ == nullptr; }
  const standin::Storage *getImpl() const { return impl_; }
  bool isIntOrFloat() const { return impl_ && impl_->kind == standin::Kind::IntOrFloat; }
  unsigned getIntOrFloatBitWidth() const {
    if (!isIntOrFloat()) std::abort();  // MLIR asserts here
    return impl_->width;
  }

 private:
  const standin::Storage *impl_ = nullptr;
};

class IntegerAttr : public Attribute {
 public:
  using Attribute::Attribute;
  static bool classof(Attribute a) { return a.getImpl()->kind == standin::Kind::Integer; }
  llvm::APInt getValue() const { return llvm::APInt(getImpl()->width, getImpl()->value); }
};

class ShapedType {
 public:
  static constexpr std::int64_t kDynamic = std::numeric_limits<std::int64_t>::min();
  static bool isDynamic(std::int64_t d) { return d == kDynamic; }
};

// LLVM-style casts over the handles: To::classof decides, a null handle is no match.
template <typename To, typename From>
bool isa(From v) {
  return To::classof(v);
}
template <typename To, typename From>
bool isa_and_nonnull(From v) {
  return static_cast<bool>(v) && To::classof(v);
}
template <typename To, typename From>
To dyn_cast(From v) {
  if (!v) std::abort();  // llvm asserts on a null dyn_cast
  return To::classof(v) ? To(v.getImpl()) : To();
}
template <typename To, typename From>
To dyn_cast_or_null(From v) {
  return isa_and_nonnull<To>(v) ? To(v.getImpl()) : To();
}

class Operation;

// An SSA value: its type and the operation that defines it (null for a block argument).
class Value {
 public:
  Value() = default;
  Value(Type type, Operation *def) : type_(type), def_(def) {}
  Type getType() const { return type_; }
  Operation *getDefiningOp() const { return def_; }
  template <typename OpTy>
  OpTy getDefiningOp() const {
    return def_ && OpTy::classof(def_) ? OpTy(def_) : OpTy();
  }

 private:
  Type type_;
  Operation *def_ = nullptr;
};

// An operation with a name, its operands and (for memdesc_subslice) its offsets; op errors
// are recorded, not printed.
class Operation {
 public:
  class InFlightDiagnostic {
   public:
    InFlightDiagnostic(Operation *op, std::size_t index) : op_(op), index_(index) {}
    InFlightDiagnostic &operator<<(const char *text) {
      op_->errors[index_] += text;
      return *this;
    }
    InFlightDiagnostic &operator<<(const std::string &text) { return *this << text.c_str(); }
    operator LogicalResult() const { return failure(); }  // NOLINT: implicit, as in MLIR

   private:
    Operation *op_;
    std::size_t index_;
  };

  std::string name;
  std::vector<Value> operands;
  std::vector<std::int32_t> offsets;
  std::vector<std::string> errors;  // every op error's text, in emission order

  InFlightDiagnostic emitOpError(const char *message) {
    errors.push_back("'" + name + "' op " + message);
    return InFlightDiagnostic(this, errors.size() - 1);
  }
};

namespace triton::gpu {

class SharedMemorySpaceAttr : public Attribute {
 public:
  using Attribute::Attribute;
  static bool classof(Attribute a) { return a.getImpl()->kind == standin::Kind::SharedSpace; }
};

class NVMMASharedEncodingAttr : public Attribute {
 public:
  using Attribute::Attribute;
  static bool classof(Attribute a) { return a.getImpl()->kind == standin::Kind::NVMMA; }
  unsigned getSwizzlingByteWidth() const { return getImpl()->width; }
  bool getTransposed() const { return getImpl()->transposed; }
  unsigned getElementBitWidth() const { return static_cast<unsigned>(getImpl()->value); }
};

class SwizzledSharedEncodingAttr : public Attribute {
 public:
  using Attribute::Attribute;
  static bool classof(Attribute a) { return a.getImpl()->kind == standin::Kind::Swizzled; }
  llvm::ArrayRef<unsigned> getOrder() const { return getImpl()->order; }
};

class MemDescType : public Type {
 public:
  using Type::Type;
  static bool classof(Type t) { return t.getImpl()->kind == standin::Kind::MemDesc; }
  llvm::ArrayRef<std::int64_t> getShape() const { return getImpl()->shape; }
  llvm::ArrayRef<std::int64_t> getAllocShape() const { return getImpl()->allocShape; }
  Type getElementType() const { return Type(getImpl()->elementType); }
  Attribute getEncoding() const { return Attribute(getImpl()->encoding); }
  Attribute getMemorySpace() const { return Attribute(getImpl()->memorySpace); }
  bool getMutableMemory() const { return getImpl()->mutableMemory; }
};

class MemDescSubsliceOp {
 public:
  MemDescSubsliceOp() = default;
  explicit MemDescSubsliceOp(Operation *op) : op_(op) {}
  static bool classof(const Operation *op) { return op->name == "ttg.memdesc_subslice"; }
  explicit operator bool() const { return op_ != nullptr; }
  llvm::ArrayRef<std::int32_t> getOffsets() const { return op_->offsets; }
  Value getSrc() const { return op_->operands.at(0); }

 private:
  Operation *op_ = nullptr;
};

}  // namespace triton::gpu

namespace triton::nvidia_gpu {

class TensorMemorySpaceAttr : public Attribute {
 public:
  using Attribute::Attribute;
  static bool classof(Attribute a) { return a.getImpl()->kind == standin::Kind::TensorSpace; }
};

}  // namespace triton::nvidia_gpu

namespace standin {

// Owns every type, attribute and operation it makes (MLIR's context and IR).
class Context {
 public:
  const Storage *make(Storage s) {
    storage_.push_back(std::move(s));
    return &storage_.back();
  }
  Operation *makeOp(std::string name) {
    ops_.emplace_back();
    ops_.back().name = std::move(name);
    return &ops_.back();
  }

 private:
  std::deque<Storage> storage_;  // deque: handles stay valid as it grows
  std::deque<Operation> ops_;
};

}  // namespace standin
}  // namespace mlir

#endif  // TLE_ALIAS_MLIR_STANDIN_H
