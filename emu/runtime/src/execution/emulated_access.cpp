#include "emulated_access.h"

#include <cstring>
#include <initializer_list>

namespace emu::detail {
namespace {
constexpr ZydisMachineMode kMode = ZYDIS_MACHINE_MODE_LONG_64;

// The gregs slot of a 64-bit general register, or -1.
int slot_of(ZydisRegister r) {
  switch (r) {
    case ZYDIS_REGISTER_RAX:
      return REG_RAX;
    case ZYDIS_REGISTER_RBX:
      return REG_RBX;
    case ZYDIS_REGISTER_RCX:
      return REG_RCX;
    case ZYDIS_REGISTER_RDX:
      return REG_RDX;
    case ZYDIS_REGISTER_RSI:
      return REG_RSI;
    case ZYDIS_REGISTER_RDI:
      return REG_RDI;
    case ZYDIS_REGISTER_RBP:
      return REG_RBP;
    case ZYDIS_REGISTER_RSP:
      return REG_RSP;
    case ZYDIS_REGISTER_R8:
      return REG_R8;
    case ZYDIS_REGISTER_R9:
      return REG_R9;
    case ZYDIS_REGISTER_R10:
      return REG_R10;
    case ZYDIS_REGISTER_R11:
      return REG_R11;
    case ZYDIS_REGISTER_R12:
      return REG_R12;
    case ZYDIS_REGISTER_R13:
      return REG_R13;
    case ZYDIS_REGISTER_R14:
      return REG_R14;
    case ZYDIS_REGISTER_R15:
      return REG_R15;
    default:
      return -1;
  }
}

// A general register's slot and width in bits; false for one this file does not write (AH..DH,
// whose bits are not the low ones, and anything not a general register).
bool general_register(ZydisRegister r, int* slot, unsigned* bits) {
  if (r == ZYDIS_REGISTER_AH || r == ZYDIS_REGISTER_BH || r == ZYDIS_REGISTER_CH ||
      r == ZYDIS_REGISTER_DH)
    return false;
  *slot = slot_of(ZydisRegisterGetLargestEnclosing(kMode, r));
  *bits = ZydisRegisterGetWidth(kMode, r);
  return *slot >= 0 && (*bits == 8 || *bits == 16 || *bits == 32 || *bits == 64);
}

uint64_t low_bits(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }

// As the CPU writes a general register: a 32-bit write clears the upper half, 8 and 16 keep it.
void write_general(gregset_t& g, int slot, unsigned bits, uint64_t value) {
  const auto old = static_cast<uint64_t>(g[slot]);
  const uint64_t kept = bits >= 32 ? 0 : old & ~low_bits(~0ull, bits);
  g[slot] = static_cast<greg_t>(kept | low_bits(value, bits));
}

bool is_xmm(ZydisRegister r) { return r >= ZYDIS_REGISTER_XMM0 && r <= ZYDIS_REGISTER_XMM15; }

unsigned char* xmm_bytes(ucontext_t& c, ZydisRegister r) {
  return reinterpret_cast<unsigned char*>(
      c.uc_mcontext.fpregs->_xmm[r - ZYDIS_REGISTER_XMM0].element);
}

// The memory operand's address (base + index * scale + displacement); false for a segment
// override (fs:, gs:) or a register this file cannot read.
bool address_of(const ZydisDecodedInstruction& in, const ZydisDecodedOperand& op,
                const gregset_t& g, uintptr_t* address) {
  if (in.address_width != 64 || op.mem.type != ZYDIS_MEMOP_TYPE_MEM ||
      op.mem.segment == ZYDIS_REGISTER_FS || op.mem.segment == ZYDIS_REGISTER_GS)
    return false;
  auto value = [&](ZydisRegister r, uint64_t* v) {
    if (r == ZYDIS_REGISTER_NONE) return *v = 0, true;
    if (r == ZYDIS_REGISTER_RIP) return *v = static_cast<uint64_t>(g[REG_RIP]) + in.length, true;
    const int slot = slot_of(r);
    return slot >= 0 && (*v = static_cast<uint64_t>(g[slot]), true);
  };
  uint64_t base = 0, index = 0;
  if (!value(op.mem.base, &base) || !value(op.mem.index, &index)) return false;
  const auto disp = op.mem.disp.has_displacement ? static_cast<uint64_t>(op.mem.disp.value) : 0;
  *address = static_cast<uintptr_t>(base + index * op.mem.scale + disp);
  return true;
}

bool one_of(ZydisMnemonic m, std::initializer_list<ZydisMnemonic> list) {
  for (ZydisMnemonic x : list)
    if (m == x) return true;
  return false;
}

// `rep movs` and `rep stos`, forward (the direction flag clear), through volatile pointers (not
// turned into a memmove).
Emulated repeated_string(const ZydisDecodedInstruction& in, gregset_t& g, AccessibleAt accessible) {
  const ZydisMnemonic m = in.mnemonic;
  const bool copy = one_of(
      m, {ZYDIS_MNEMONIC_MOVSB, ZYDIS_MNEMONIC_MOVSW, ZYDIS_MNEMONIC_MOVSD, ZYDIS_MNEMONIC_MOVSQ});
  const bool fill = one_of(
      m, {ZYDIS_MNEMONIC_STOSB, ZYDIS_MNEMONIC_STOSW, ZYDIS_MNEMONIC_STOSD, ZYDIS_MNEMONIC_STOSQ});
  const uint64_t unit = in.operand_width / 8;
  const auto repeats = static_cast<uint64_t>(g[REG_RCX]);
  if (!(copy || fill) || (in.attributes & ZYDIS_ATTRIB_HAS_REP) == 0 || in.address_width != 64 ||
      (g[REG_EFL] & 0x400) != 0 || unit == 0 || repeats > (1ull << 40) / unit)
    return {};
  const uint64_t bytes = repeats * unit;
  const auto source = static_cast<uintptr_t>(g[REG_RSI]);
  const auto target = static_cast<uintptr_t>(g[REG_RDI]);
  auto* to = static_cast<volatile unsigned char*>(accessible(target, bytes));
  const auto* from =
      copy ? static_cast<const volatile unsigned char*>(accessible(source, bytes)) : nullptr;
  if (to == nullptr || (copy && from == nullptr)) return {};
  // A repetition at a time, each reading its whole unit before writing it, as the instruction
  // does: where source and target overlap, the result is the instruction's to the byte (a kernel
  // must not tell a sampled block by it).
  const auto value = static_cast<uint64_t>(g[REG_RAX]);
  for (uint64_t i = 0; i < repeats; ++i) {
    unsigned char unit_bytes[8];
    for (uint64_t j = 0; j < unit; ++j)
      unit_bytes[j] = copy ? from[i * unit + j] : static_cast<unsigned char>(value >> (8 * j));
    for (uint64_t j = 0; j < unit; ++j) to[i * unit + j] = unit_bytes[j];
  }
  Emulated done;
  if (copy) {
    done.accesses[done.count++] = {source, bytes, false};
    g[REG_RSI] += static_cast<greg_t>(bytes);
  }
  done.accesses[done.count++] = {target, bytes, true};
  g[REG_RDI] += static_cast<greg_t>(bytes);
  g[REG_RCX] = 0;
  return done;
}

// The bytes an SSE move loads into an XMM register: the rest of the register is cleared, except
// for the full 16-byte moves, which leave nothing.
bool xmm_move(ZydisMnemonic m) {
  return one_of(
      m, {ZYDIS_MNEMONIC_MOVSS, ZYDIS_MNEMONIC_MOVSD, ZYDIS_MNEMONIC_MOVD, ZYDIS_MNEMONIC_MOVQ,
          ZYDIS_MNEMONIC_MOVUPS, ZYDIS_MNEMONIC_MOVAPS, ZYDIS_MNEMONIC_MOVUPD,
          ZYDIS_MNEMONIC_MOVAPD, ZYDIS_MNEMONIC_MOVDQU, ZYDIS_MNEMONIC_MOVDQA});
}

// A move between one register (or an immediate) and one memory operand.
Emulated single_move(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops,
                     ucontext_t& c, AccessibleAt accessible) {
  const ZydisMnemonic m = in.mnemonic;
  const bool general = one_of(
      m, {ZYDIS_MNEMONIC_MOV, ZYDIS_MNEMONIC_MOVZX, ZYDIS_MNEMONIC_MOVSX, ZYDIS_MNEMONIC_MOVSXD});
  if (in.operand_count_visible != 2 || in.encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY ||
      !(general || xmm_move(m)))
    return {};
  const bool store = ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY;
  const ZydisDecodedOperand& memory = ops[store ? 0 : 1];
  const ZydisDecodedOperand& other = ops[store ? 1 : 0];
  if (memory.type != ZYDIS_OPERAND_TYPE_MEMORY) return {};
  uintptr_t address = 0;
  const uint64_t bytes = memory.size / 8;
  if (bytes == 0 || bytes > 16 || !address_of(in, memory, c.uc_mcontext.gregs, &address)) return {};
  void* at = accessible(address, bytes);
  if (at == nullptr) return {};
  gregset_t& g = c.uc_mcontext.gregs;
  int slot = -1;
  unsigned bits = 0;
  if (other.type == ZYDIS_OPERAND_TYPE_REGISTER && is_xmm(other.reg.value)) {
    if (!xmm_move(m) || c.uc_mcontext.fpregs == nullptr) return {};
    unsigned char* xmm = xmm_bytes(c, other.reg.value);
    if (store) {
      std::memcpy(at, xmm, bytes);
    } else {
      std::memset(xmm, 0, 16);
      std::memcpy(xmm, at, bytes);
    }
  } else if (other.type == ZYDIS_OPERAND_TYPE_REGISTER && general &&
             general_register(other.reg.value, &slot, &bits)) {
    if (store) {
      const auto value = static_cast<uint64_t>(g[slot]);
      std::memcpy(at, &value, bytes);  // little-endian: the low bytes
    } else {
      uint64_t value = 0;
      std::memcpy(&value, at, bytes);
      if (m == ZYDIS_MNEMONIC_MOVSX || m == ZYDIS_MNEMONIC_MOVSXD) {
        const unsigned from = static_cast<unsigned>(bytes * 8);
        if (from < 64 && (value >> (from - 1)) & 1) value |= ~low_bits(~0ull, from);
      }
      write_general(g, slot, bits, value);
    }
  } else if (other.type == ZYDIS_OPERAND_TYPE_IMMEDIATE && store && m == ZYDIS_MNEMONIC_MOV) {
    const uint64_t value = other.imm.value.u;
    std::memcpy(at, &value, bytes);
  } else {
    return {};
  }
  Emulated done;
  done.accesses[done.count++] = {address, bytes, store};
  return done;
}
// Scalar SSE arithmetic with a memory source (`addss (%r15), %xmm0`: g++ folds a kernel's loads
// into it): the low lane of the register combined with the value read, the other lanes kept. The
// handler runs with the FPU's initial state (round to nearest, no flush to zero), as the
// emulator's kernels do, so the result is the instruction's, bit for bit.
template <class T>
T arithmetic(ZydisMnemonic m, T a, T b) {
  switch (m) {
    case ZYDIS_MNEMONIC_ADDSS: case ZYDIS_MNEMONIC_ADDSD: return a + b;
    case ZYDIS_MNEMONIC_SUBSS: case ZYDIS_MNEMONIC_SUBSD: return a - b;
    case ZYDIS_MNEMONIC_MULSS: case ZYDIS_MNEMONIC_MULSD: return a * b;
    default: return a / b;
  }
}

Emulated scalar_arithmetic(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops,
                           ucontext_t& c, AccessibleAt accessible) {
  const ZydisMnemonic m = in.mnemonic;
  const bool single = one_of(m, {ZYDIS_MNEMONIC_ADDSS, ZYDIS_MNEMONIC_SUBSS, ZYDIS_MNEMONIC_MULSS,
                                 ZYDIS_MNEMONIC_DIVSS});
  const bool twice = one_of(m, {ZYDIS_MNEMONIC_ADDSD, ZYDIS_MNEMONIC_SUBSD, ZYDIS_MNEMONIC_MULSD,
                                ZYDIS_MNEMONIC_DIVSD});
  if (!(single || twice) || in.operand_count_visible != 2 ||
      in.encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY || c.uc_mcontext.fpregs == nullptr ||
      ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER || !is_xmm(ops[0].reg.value) ||
      ops[1].type != ZYDIS_OPERAND_TYPE_MEMORY)
    return {};
  const uint64_t bytes = single ? 4 : 8;
  uintptr_t address = 0;
  if (!address_of(in, ops[1], c.uc_mcontext.gregs, &address)) return {};
  const void* at = accessible(address, bytes);
  if (at == nullptr) return {};
  unsigned char* xmm = xmm_bytes(c, ops[0].reg.value);
  if (single) {
    float a, b;
    std::memcpy(&a, xmm, 4);
    std::memcpy(&b, at, 4);
    const volatile float r = arithmetic(m, a, b);
    const float result = r;
    std::memcpy(xmm, &result, 4);
  } else {
    double a, b;
    std::memcpy(&a, xmm, 8);
    std::memcpy(&b, at, 8);
    const volatile double r = arithmetic(m, a, b);
    const double result = r;
    std::memcpy(xmm, &result, 8);
  }
  Emulated done;
  done.accesses[done.count++] = {address, bytes, false};
  return done;
}
}  // namespace

Emulated emulate_access(const ZydisDecodedInstruction& instruction,
                        const ZydisDecodedOperand* operands, ucontext_t& context,
                        AccessibleAt accessible) {
  Emulated done = repeated_string(instruction, context.uc_mcontext.gregs, accessible);
  if (done.count == 0) done = single_move(instruction, operands, context, accessible);
  if (done.count == 0) done = scalar_arithmetic(instruction, operands, context, accessible);
  if (done.count > 0) context.uc_mcontext.gregs[REG_RIP] += instruction.length;
  return done;
}

}  // namespace emu::detail
