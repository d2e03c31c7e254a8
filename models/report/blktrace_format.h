// The blktrace binary format (include/uapi/linux/blktrace_api.h, version 7): one
// `struct blk_io_trace` of 48 bytes per event, followed by `pdu_len` bytes of payload.
// blktrace writes the records in the byte order of the traced machine; blksim writes
// little-endian (x86, arm64) and reads both, as blkparse does (check_data_endianness()).
//
// The action word is the action code in the low 16 bits and category bits above them
// (BLK_TC_ACT(c) = c << 16): the kernel's __blk_add_trace() ORs in the direction (READ or
// WRITE: every op that is not a write counts as a read, so plug/unplug records with no
// operation carry BLK_TC_READ) and REQ_SYNC etc.; blk_add_trace_rq() adds BLK_TC_FS for a
// file-system request. Both the writer (models/report) and the reader (tools/replay) use
// these definitions.
#pragma once

#include <cstdint>

namespace blksim::report::blktrace {

inline constexpr uint32_t MAGIC = 0x65617400;  // BLK_IO_TRACE_MAGIC: "\0tae" (0x656174 << 8)
inline constexpr uint32_t VERSION = 0x07;      // BLK_IO_TRACE_VERSION
inline constexpr uint32_t RECORD_BYTES = 48;   // sizeof(struct blk_io_trace)
inline constexpr uint32_t TASK_COMM_LEN = 16;  // BLK_TN_PROCESS carries tsk->comm

// enum blktrace_cat
inline constexpr uint32_t TC_READ = 1u << 0;
inline constexpr uint32_t TC_WRITE = 1u << 1;
inline constexpr uint32_t TC_FLUSH = 1u << 2;
inline constexpr uint32_t TC_SYNC = 1u << 3;
inline constexpr uint32_t TC_QUEUE = 1u << 4;
inline constexpr uint32_t TC_REQUEUE = 1u << 5;
inline constexpr uint32_t TC_ISSUE = 1u << 6;
inline constexpr uint32_t TC_COMPLETE = 1u << 7;
inline constexpr uint32_t TC_FS = 1u << 8;
inline constexpr uint32_t TC_PC = 1u << 9;
inline constexpr uint32_t TC_NOTIFY = 1u << 10;
inline constexpr uint32_t TC_DISCARD = 1u << 13;
inline constexpr uint32_t TC_FUA = 1u << 15;
inline constexpr uint32_t TC_SHIFT = 16;
constexpr uint32_t tc_act(uint32_t category) { return category << TC_SHIFT; }

// enum blktrace_act
inline constexpr uint32_t TA_QUEUE = 1;
inline constexpr uint32_t TA_BACKMERGE = 2;
inline constexpr uint32_t TA_FRONTMERGE = 3;
inline constexpr uint32_t TA_GETRQ = 4;
inline constexpr uint32_t TA_SLEEPRQ = 5;
inline constexpr uint32_t TA_REQUEUE = 6;
inline constexpr uint32_t TA_ISSUE = 7;
inline constexpr uint32_t TA_COMPLETE = 8;
inline constexpr uint32_t TA_PLUG = 9;
inline constexpr uint32_t TA_UNPLUG_IO = 10;
inline constexpr uint32_t TA_UNPLUG_TIMER = 11;
inline constexpr uint32_t TA_INSERT = 12;
inline constexpr uint32_t TA_SPLIT = 13;

// enum blktrace_notify, as full action words (BLK_TN_*)
inline constexpr uint32_t TN_PROCESS = 0 | tc_act(TC_NOTIFY);
inline constexpr uint32_t TN_TIMESTAMP = 1 | tc_act(TC_NOTIFY);
inline constexpr uint32_t TN_MESSAGE = 2 | tc_act(TC_NOTIFY);

// The dev_t in a record is the kernel's internal encoding, MKDEV(ma, mi) = ma << 20 | mi
// (MINORBITS = 20), not glibc's: blkparse decodes it with the same shift.
constexpr uint32_t mkdev(uint32_t major, uint32_t minor) { return major << 20 | minor; }
constexpr uint32_t dev_major(uint32_t dev) { return dev >> 20; }
constexpr uint32_t dev_minor(uint32_t dev) { return dev & ((1u << 20) - 1); }

struct Record {
    uint32_t magic = MAGIC | VERSION;
    uint32_t sequence = 0;
    uint64_t time = 0;     // ns
    uint64_t sector = 0;
    uint32_t bytes = 0;
    uint32_t action = 0;
    uint32_t pid = 0;
    uint32_t device = 0;
    uint32_t cpu = 0;
    uint16_t error = 0;
    uint16_t pdu_len = 0;
};

namespace detail {
template <typename T>
inline void put_le(unsigned char* p, T v) {
    for (unsigned i = 0; i < sizeof(T); ++i)
        p[i] = static_cast<unsigned char>(v >> (8 * i));
}
template <typename T>
inline T get(const unsigned char* p, bool big_endian) {
    T v = 0;
    for (unsigned i = 0; i < sizeof(T); ++i)
        v |= static_cast<T>(static_cast<T>(p[big_endian ? sizeof(T) - 1 - i : i]) << (8 * i));
    return v;
}
}  // namespace detail

// The 48 bytes of `r`, little-endian, in struct blk_io_trace's field order.
inline void encode(const Record& r, unsigned char out[RECORD_BYTES]) {
    using detail::put_le;
    put_le(out + 0, r.magic);
    put_le(out + 4, r.sequence);
    put_le(out + 8, r.time);
    put_le(out + 16, r.sector);
    put_le(out + 24, r.bytes);
    put_le(out + 28, r.action);
    put_le(out + 32, r.pid);
    put_le(out + 36, r.device);
    put_le(out + 40, r.cpu);
    put_le(out + 44, r.error);
    put_le(out + 46, r.pdu_len);
}

// The byte order a record's magic word reveals: true little-endian, false big-endian;
// nullopt-like `ok = false` when the word is no blktrace magic in either order.
struct ByteOrder {
    bool ok = false;
    bool big_endian = false;
};
inline ByteOrder detect_byte_order(const unsigned char* p) {
    const uint32_t le = detail::get<uint32_t>(p, false);
    if ((le & 0xffffff00u) == MAGIC)
        return {true, false};
    const uint32_t be = detail::get<uint32_t>(p, true);
    if ((be & 0xffffff00u) == MAGIC)
        return {true, true};
    return {};
}

inline Record decode(const unsigned char in[RECORD_BYTES], bool big_endian) {
    using detail::get;
    Record r;
    r.magic = get<uint32_t>(in + 0, big_endian);
    r.sequence = get<uint32_t>(in + 4, big_endian);
    r.time = get<uint64_t>(in + 8, big_endian);
    r.sector = get<uint64_t>(in + 16, big_endian);
    r.bytes = get<uint32_t>(in + 24, big_endian);
    r.action = get<uint32_t>(in + 28, big_endian);
    r.pid = get<uint32_t>(in + 32, big_endian);
    r.device = get<uint32_t>(in + 36, big_endian);
    r.cpu = get<uint32_t>(in + 40, big_endian);
    r.error = get<uint16_t>(in + 44, big_endian);
    r.pdu_len = get<uint16_t>(in + 46, big_endian);
    return r;
}

}  // namespace blksim::report::blktrace
