// A lock-free-read GPU hash map by bucketed cuckoo hashing, after the design
// BGHT published (Awad et al., "Analyzing and implementing GPU hash tables"):
// 32-bit keys and values in 8-byte slots, buckets of 8 slots (64 bytes, one
// DRAM burst), two buckets per key, an operation per tile of 4 threads that
// reads a bucket with one 16-byte load each and votes on the slots. A find
// reads its first bucket, and its second only when the first is full and
// lacks the key: one 64-byte read for most keys at any load.
//
// Why 8 slots and 2 choices (bench/NOTES.md, issue 18 step 11): a sequential
// model of this insert (two choices, moves out of first buckets only, a
// path of up to 3 moves) places every key up to load 0.97 with 8-slot buckets,
// with 13% of keys in their second bucket at load 0.9 and 17% at 0.95. A
// 16-slot bucket halves that share but doubles the bytes of every read (128
// bytes: four sectors against two), and finds are bound by the bytes they
// fetch from random places; a third choice adds a bucket to every miss.
//
// Slot states (key, value): empty {E, Ev}; live {k, v}; dead {k, Ev} (erased:
// the key keeps its slot, as in linear_probing_map); tombstone {T, Ev} with T =
// the empty key - 1 (a slot a move of the locked path has just vacated, held
// by that path's insert; the bulk insert's moves leave none).
//
// The invariant everything rests on: a slot, once non-empty, is never empty
// again (until clear()). Erase leaves the key dead in its slot; only inserts
// whose two buckets are full reuse dead slots and tombstones, by CAS. Hence
// "bucket b has an empty slot now" proves b has never been full, and nothing
// ever left b for a second bucket: no key whose first bucket is b lives in
// its second bucket, so a find, an erase or an insert that sees an empty slot
// in its first bucket need not read the second.
//
// A second invariant: a bucket's non-empty slots are always a prefix of it
// (slots 0..m-1 for some m). Only two kinds of write turn an empty slot
// non-empty, claim (new keys: lock-free, claim-only, locked and insert-only
// paths alike) and claim_for (a move's copy; make_room's tombstone), and
// both try the empty slots of a read's view of the bucket (all of them,
// never a subset) in ascending order, each by a CAS from the empty word.
// When such a CAS fills slot j, every slot i < j was seen non-empty by that
// read (and slots never empty again) or was tried first and its CAS failed,
// i.e. held a non-empty word then: slots 0..j-1 are all non-empty. Every
// other write is a CAS from a non-empty word (set_value and kill from a word
// with key k; reuse from a dead word or tombstone; hand_over from a live
// word; the tombstone's replacement) to a non-empty one: no write stores
// the empty word but clear(). Moves, reuses of dead slots and tombstones
// never write into an empty slot except by claim_for: the locked path's
// moves and the insert-only path's keep the prefix too.
//
// Finds by half buckets (issue 18, step 23; find_halves). In a kernel where
// nothing writes (find_async, contains_async: read-only refs), a find reads
// slots 0-3 of bucket 1 (thread r loads slot r: 8 bytes each, one 32-byte
// sector for the tile), and slots 4-7 only when slots 0-3 are full without
// k; then bucket 2 the same way, only when bucket 1 is full without k. A
// match ends the find (a dead key: absent). An empty slot in slots 0-3 ends
// it too: by the prefix invariant slots 4-7 are empty, so k is not there, and
// by the first invariant k is not in the second bucket (or, in bucket 2, in
// the rest of it). Dead keys and tombstones are not empty words: they never
// end a find early. Hence the same answer as a whole-bucket read, at one
// sector for a key in slots 0-3 of bucket 1 against two: a sequential model
// of the bulk insert (2^22 keys, the map's hashes and chunks) puts 60% of
// first-bucket keys in slots 0-3 at load 0.9 (81% at 0.5, 59% at 0.95) and
// 12.5% of keys in their second bucket: 1.70 sectors per hit against 2.25
// (1.21 against 2.02 at 0.5, 1.79 against 2.32 at 0.95). Misses gain little
// at high load (3.26 against 3.30 sectors at 0.9). Kernels with writers keep
// whole-bucket reads: there a half read could see slots 0-3 before a claim
// or a move changed them and slots 4-7 after, and their confirming reads and
// fences (below) are stated for whole reads. set_find_read() selects the
// whole-bucket bulk find (the bench times both; kCuckooFindRead the default).
// The bulk erase reads the same way (step 24; locate_halves, shared with the
// finds): its kernel runs alone, and its erases only turn live values dead
// (no slot empties or fills), so both invariants hold while it runs; a
// match at the lowest slot, bucket 1 first, is the slot a whole read picks,
// then one kill. set_erase_read() selects whole-bucket erases.
//
// Operations (each on a tile; the tile's first thread does the atomics):
//   * find: read bucket 1; a key match returns its value (a dead key: absent);
//     else an empty slot there means absent; else read bucket 2 (where nothing
//     writes, by half buckets: above). In a kernel
//     with writers, a miss in both buckets waits for each bucket's lock to be
//     seen free and reads both once more (find_again).
//   * insert of a present key (live or dead): one CAS of its slot's value.
//     Of an absent key: the empty slots of bucket 1 are tried by CAS in
//     ascending slot order; when bucket 1 is full, those of bucket 2 (after
//     reading it for the key). One 64-bit CAS per new key in the common case.
//     "Full" is a read without an empty slot, or a read whose empty slots
//     other keys' CASes all took first (a failed CAS returns the word that
//     took the slot, so nothing is read again). This lock-free part is
//     insert_lock_free in kernels where keys may move meanwhile (a kernel of
//     the ref's own insert beside finds and erases), and insert_claim_only in
//     the first pass of the bulk insert and of apply_async, where none does
//     (no fences: "Bulk insert in passes" below). An insert that finds
//     both buckets full without its key is deferred: to the locked path below
//     in the ref's insert, to the later passes of the bulk insert and of
//     apply_async, which run the insert-only path ("Inserts alone").
//   * erase: one CAS {k, v} -> {k, Ev} (no tombstone to clean up, no count
//     atomic: counts go per block). In a kernel with writers, an erase that
//     misses in both buckets takes both buckets' locks, under which nothing
//     moves in or out of them, and looks again (erase_locked). The bulk erase
//     kernel runs alone and needs one read per bucket (erase_alone; by
//     half buckets by default, as the read-only finds).
//   * The locked path (insert_locked): the insert locks both buckets (a lock
//     word per bucket, in a separate array that only the full-bucket paths
//     and the last looks of erase and find touch, taken in index order),
//     reuses a dead slot of either, or else makes room: a key living in its
//     first bucket X moves to its second bucket Y (trying Y's lock, never
//     waiting for it, so no lock cycle can form), which may first move one of
//     Y's keys, up to kMaxEvictionDepth + 1 moves in a path. Keys only move
//     from their first bucket to their second (a key in its second bucket
//     never moves), and only out of a bucket that was read full: a deeper
//     bucket with an empty slot gives that slot instead (make_room), which
//     keeps the invariant above. An insert that finds no path fails: counted
//     in hash_result::failed, and insert() throws resource_error naming the
//     capacity. Paths blocked by other inserts' locks are retried (at most
//     kCuckooMaxInsertAttempts times, with a back-off), never spun on; a try
//     reads at most kCuckooSearchBudget buckets, and the first failure sets a
//     give-up flag after which the launch's locked inserts fail at once.
//
// Bulk insert in passes (insert_async; bench/NOTES.md, issue 18 steps 19-20).
// The keys go a chunk at a time (insert_chunk(): a quarter of the slots), each
// chunk in four kernels, one after the other on the stream:
//   * First pass (claim_kernel, insert_claim_only): each insert updates its
//     key where it is, or claims an empty slot of bucket 1, else of bucket 2,
//     by the ascending CASes above. Nothing else runs in this kernel: no key
//     moves, none dies, no slot is reused, so a slot's key never changes once
//     written and slots only fill. Hence no fence between the reads of bucket
//     1 and bucket 2, a key found in bucket 2 is no move's copy (updated
//     there at once), and "both buckets full without k" holds for the rest of
//     the kernel: such an insert is deferred, its input index written to its
//     warp's segment of the overflow list. A segment holds as many entries
//     as its warp takes keys in the chunk, so it cannot overflow, and the
//     list holds a chunk's worth (a byte per slot of the table). No tile
//     waits for a deferred insert, and the kernel has no path that moves
//     keys: 32 registers, 2048 threads per multiprocessor.
//   * Every copy of a key in one chunk defers, or none does. If a copy saw
//     both buckets full without k, no claim of the pass can put k into
//     either: the slot it would take held another key when that copy read it,
//     and slots never empty. So no copy finds k in the first pass, and copies
//     of one key meet in the first pass only, by the ascending claims (one
//     adds it, the rest update it), or in the later three only, under its
//     bucket 1's lock (the first holder places it, the next ones update it).
//   * Fast settle pass (settle_fast_kernel, settle_fast; step 29): the
//     deferred inserts that an update, a reuse or one move settles, the 8
//     tiles of a warp in step ("Fast settle pass" below). What it leaves
//     (no room within one move, bucket 1's lock held at every try, a lost
//     race: nothing written) goes back to the front of its warp's segment.
//   * Second pass (settle_kernel, insert_alone_deferred): the deferred
//     inserts that the fast pass left, alone in their kernel, by the rules below. Its
//     registers are its own (80): capped at 40 within a one-pass kernel (step
//     18), this path spilled into a 448-byte stack frame per thread, past the
//     L1, and its inserts set the pace from load 0.8 on. No insert fails in
//     it: one blocked by other tiles' locks kCuckooSettleTries times, or
//     whose try found no path while other tiles ran (they may have taken the
//     slots it read, or held the buckets it needed), goes to the leftover
//     list instead. Whether a key fails would otherwise depend on the
//     schedule: under compute-sanitizer racecheck (threads serialised) round
//     3 failed 3,744 inserts that a sequential insert places (step 20).
//   * Last pass (settle_alone_kernel): one tile, the only one running,
//     settles the leftovers in turn by the same path. No lock is held by
//     another and no slot changes but by this tile, so each insert ends as a
//     sequential insert into the table of that moment would: it fails only
//     when no path of up to kMaxEvictionDepth + 1 moves within
//     kCuckooSoleSearchBudget bucket reads exists (more than a whole search
//     of such paths reads), and then sets the give-up flag. Its list is
//     almost always empty (one launch that reads a count).
//   * The kernel boundaries order passes and chunks: a first pass starts on a
//     table whose invariants hold (each key once; no tombstone; a key in its
//     second bucket has a full first bucket), which is all it relies on, and
//     sees every key its earlier chunks placed, moved or updated. The give-up
//     flag is cleared once per call: after a failure, the deferred inserts
//     of later chunks fail fast too.
//
// Inserts alone (the bulk insert's second and last passes, where no find or
// erase runs; see insert_alone_deferred): the locked path's locks serve finds and erases
// (no key enters or leaves a locked bucket), which this kernel has none of,
// so its deferred inserts lock less and read less. (The rules also allow
// lock-free inserts alongside, as in step 18's one-pass kernel; since step
// 19 none runs there.)
//   * The insert takes bucket 1's lock only (waiting for it; its holder only
//     tries further locks, so no cycle forms), reads both buckets at once
//     (under the lock the key neither arrives nor leaves: below), updates the
//     key where it is, reuses a dead slot, or else makes room by moves.
//   * Rule: a live key leaves a bucket only by a move under that bucket's
//     lock, held by the mover (its own bucket 1, or a bucket it tried and
//     got). Moving into a bucket takes no lock: into an empty slot it is a
//     claim like any other (ascending CAS); into the slot of a key that moved
//     on deeper, that bucket is locked already by the rule. (A dead key may
//     be replaced by a reuse without the lock: by CAS from the dead word, so
//     a revival or another reuse of that slot sees its CAS fail and reads
//     again.)
//   * A move copies the key j into its second bucket first and then replaces
//     j's original slot by CAS with what comes in (the new key, or the
//     previous key of the path): no tombstone, and j visible throughout. The
//     path is executed from its far end, so each key's copy lands before its
//     original is replaced. Shortest paths first: the second buckets of all
//     candidates of a bucket are read (four at a time, in flight together)
//     before any is emptied deeper; up to kMaxEvictionDepth + 1 moves, out
//     of bucket 1 and then out of bucket 2 (under its lock, if free).
//   * Fences: fence.acq_rel (fence_light), not fence.sc: only lock holders
//     and claims meet here, so an acquire after taking a lock, a release
//     before giving it up, and the copy ordered before the original's end
//     are all that the rules use; no find or erase reads in between.
//   * A try reads at most kCuckooAloneSearchBudget buckets
//     (kCuckooSoleSearchBudget in the last pass); blocked tries and
//     the give-up flag are as in the locked path, except that the flag is read
//     only by tries that wait (for the lock, or again) or need paths longer
//     than one move: one word read by every deferred insert would be a hot
//     spot. Moves are counted per thread and added per block, not by an
//     atomic per move on one word.
//
// Fast settle pass (settle_fast_kernel, settle_fast; bench/NOTES.md step 29).
// Why: settle_kernel's tiles each run their own chain (a wait for bucket 1's
// lock, searches of different lengths, retries with back-off), so the 8 tiles
// of a warp diverge and the warp runs their chains largely one after another:
// at load 0.9 ~150-190 us per deferred insert (15.4 ms for ~2M of them in
// the last chunk, 25K tiles), against ~10 round trips of one insert's path.
// Most deferred inserts need an update, a reuse or one move. The fast pass
// does just that, as a fixed sequence of steps that every tile of a warp takes
// or skips together (no tile waits or loops on memory but in the short CAS
// loops of a claim), so a warp's step costs one insert's round trips:
//   1. bucket 1's lock, tried once (a CAS with acquire semantics). Held: the
//      tile keeps its insert for the warp's next step (the holder is a tile
//      of this pass, done within its own step), at most kCuckooFastTries.
//   2. both buckets read at once; 3. an update where k is, a claim (none
//      expected), or a reuse of a dead slot of either bucket;
//   4. one move out of bucket 1: its candidates' second buckets read four at
//      a time, in flight together; the first with an empty or dead slot gets
//      a copy of its key (claim_for, or a reuse by CAS), then the key's slot
//      takes k (replace_original);
//   5. else bucket 2's lock, tried once; bucket 2 read again under it (other
//      holders may have moved its keys out since step 2); one move out of it;
//   6. both locks given back after one release fence.
// What is left (no room within one move, the lock held at every try, a CAS
// lost to another tile) has written nothing: it goes back to the front of
// its warp's overflow segment (behind the entries the warp has taken, so no
// unread entry is overwritten) and settle_kernel, then settle_alone_kernel,
// take it as before. Nothing fails in the fast pass, so failures stay in the
// sole last pass and never depend on the schedule.
// Why the rules above keep holding, one by one:
//   * Only deferred inserts run there (the bulk insert's or a mixed batch's),
//     so no live key dies and no slot empties. A live key leaves a bucket
//     only by a move under that bucket's lock (bucket 1's, or bucket 2's once
//     taken), and only from its first bucket to its second; moving in takes
//     no lock (a claim of an empty slot, a reuse by CAS from the dead word).
//   * Copies of one key: all deferred or none (the first pass); deferred
//     copies meet under bucket 1's lock, here or in settle_kernel after this
//     kernel. The holder reads both buckets after its acquire, so it sees k
//     if an earlier holder placed it (released after a fence) and updates it
//     there; under the lock k can neither arrive nor leave (as in
//     insert_alone_locked). Exactly one copy reports kHashInserted.
//   * Prefix: an empty slot is filled only by claim / claim_for over all
//     empty slots of a read, ascending; every other write is a CAS from a
//     non-empty word. No write stores the empty word, and none a tombstone: a
//     key has one mover (the holder of its first bucket's lock, bucket 2's
//     included), so no extra copy ever needs undoing.
//   * Second bucket behind a full first: a key moves out of a bucket read
//     full under its lock (k's two buckets: full since the first pass, and
//     slots never empty), and k goes into bucket 2 only when bucket 1 is full.
//   * The original's CAS cannot fail: its value changes only by an insert of
//     its key, which needs the lock the mover holds (replace_original would
//     carry a change to the copy anyway). No fence between the copy and the
//     original's end (the insert-only path has one): no tile of this kernel
//     looks for a moved key but a later holder of its first bucket's lock,
//     whose acquire follows the mover's release, and settle_kernel sees both
//     writes after the kernel boundary.
//   * Candidates whose second bucket is the insert's other bucket are not
//     read: it was read without room, and none appears while only inserts run.
//   * No lock is waited for (no cycle, no spin) and every lock taken is given
//     back in the step that took it: settle_kernel starts with all locks free.
//   * Counts: an insert is counted and reported by the pass that settles it;
//     a left one has counted nothing.
//
// Correctness of concurrent operations (one kernel may mix them all):
//   * Two inserts of one absent key never both add it. Both try empty slots of
//     a bucket in ascending order by CAS, and empty slots only fill: if A took
//     slot a and B slot b < a, then b was empty when B took it, so A's read of
//     b (before its own CAS) saw it empty and A would have tried b first. A
//     failed CAS returns the slot: if it now holds the key, the insert updates
//     it there. Bucket 2 is only claimed from when bucket 1 is full, which is
//     permanent, so the inserts agree on the bucket; the locked path re-reads
//     both buckets under both locks and sees any key a lock-free insert placed
//     (that insert's empty slot filled before the lock holder found none).
//   * A find never misses a key present throughout: a move copies the key into
//     its second bucket first and only then (after a fence) overwrites its old
//     slot (with a tombstone in the locked path; with the key that comes in
//     when inserts run alone). Finds read bucket 1, then (after a fence, in
//     kernels that write) bucket 2: a find that no longer sees the old slot
//     sees the copy. A key in its second bucket never moves.
//   * While a key is in both buckets, operations that change it act on the
//     bucket-1 slot (the original): one that sees it only in bucket 2 reads
//     bucket 1 again and acts on the copy only once the original is gone. The
//     mover propagates any value change of the original to the copy before its
//     CAS that vacates the original succeeds, so the copy leaves with the
//     latest value (an erase that hit the original: the copy leaves dead).
//   * In kernels that write, "bucket 1 has an empty slot" ends a find or an
//     erase only when a second read of bucket 1 after a fence still shows an
//     empty slot: the slots of one 64-byte read need not be seen at one
//     instant, and the second read orders the empty slot after the search.
//     An insert's successful CAS on an empty slot is that proof already.
//
// Correctness of inserts alone (the bulk insert's later passes), added to the above:
//   * A key has one mover at a time (the holder of its bucket's lock), and
//     only the mover writes its copy, so moves never duplicate a key.
//   * Two inserts of one absent key both defer only when both its buckets
//     are full, for good; then no insert can add the key without an empty
//     slot except a deferred one, and deferred inserts of one key hold its
//     bucket 1's lock in turn. Under that lock the key cannot leave either
//     bucket (out of bucket 1 only under that lock; a key in its second bucket
//     never moves), so the holder's one read of each bucket sees it if any
//     insert placed it, and the second updates it.
//   * (Were a lock-free insert to run alongside, as in step 18:) a lock-free
//     insert of a key being moved sees the original (and updates it there:
//     hand_over carries the change to the copy) or, once it is gone, the
//     copy: as for finds above, bucket 1 is read before bucket 2, and a copy
//     seen while the original is still there sends the insert back to bucket
//     1 (gone_from_first). The first pass has no such case: nothing moves.
//   * A deferred insert that makes room moves keys only out of full buckets
//     (a bucket read with an empty slot under its lock gives that slot), so a
//     key in its second bucket still has a full first bucket.
//
// Mixed batches in two passes (apply_async; issue 18 steps 27-28). The batch
// goes through the bulk insert's passes (run_passes) as one chunk (at most
// kCuckooInsertChunkMax operations, a longer batch in parts of that size).
// Steps 26-28 also had one-kernel modes (two_locks: the locked path beside
// finds and erases; first_lock) and per-chunk passes (two_pass); they were
// slower, and from load 0.9 with each new key inserted 4 times in a shuffled
// batch they failed tens of thousands of inserts (step 28's outcome): removed.
// What follows holds for any chunk:
//   * First pass (claim_kernel over a mixed_input): every find and erase,
//     and every insert by insert_claim_only (an update where its key is, live
//     or dead, or a claim of an empty slot). No lock, no move, no reuse of a
//     dead slot: an insert with both buckets full without its key is
//     deferred to the overflow list, its result left to the later passes.
//     Reusing dead slots here would need bucket 1's lock to keep duplicates
//     out (step 26's first_lock did so) and would break the rule below: an
//     erase later in the pass can leave a dead slot where a deferred copy
//     of the key saw none. The later passes reuse them instead, with every
//     erase of the chunk done.
//   * The writes of this pass are claims (an empty slot gets a key), value
//     changes of a slot's key (set_value: update, revival; kill: erase). So
//     a slot's key never changes once written, slots only fill, the
//     non-empty slots of a bucket stay a prefix, and a key is in its second
//     bucket only once its first is full. Hence finds and erases read by half
//     buckets without fences (find_halves, erase_alone<halves>, as the bulk
//     kernels where nothing adds), and are right: a key present throughout
//     (live or dead) keeps its slot, and every slot a read passes to reach
//     it was non-empty before the kernel and stays so, so the read sees it;
//     a key claimed during the pass races the read, which sees it or not.
//     Each key has one slot for the whole pass, and every operation on it
//     that sees it acts on that slot by CAS: the CASes on one word put them
//     in one order, and one that did not see the key goes before the claim.
//   * Every copy of a key's insert in a chunk is deferred, or none is (as in
//     the bulk insert): if a copy saw both buckets full without k, no claim
//     can add k afterwards (slots never empty) and nothing else in the pass
//     adds a key, so no operation of the pass ever sees k. Deferred copies
//     meet under k's bucket-1 lock in the second pass (the first places k,
//     the others update it).
//   * Later passes (settle_fast_kernel, settle_kernel, settle_alone_kernel
//     over a mixed_input): the deferred inserts alone, by the fast pass and
//     then the insert-only path (bucket 1's lock, reuse of dead slots,
//     copy-first moves), which write each one's result. Nothing else runs
//     there, so their light fences and lock rules hold; the first pass leaves
//     no tombstone and no lock held. The fast pass reuses the batch's dead
//     slots (its erases are all done) in either bucket before any move.
//   * The order this realises: the chunk's first pass (its operations in the
//     order of their CASes and reads, as above), then its deferred inserts,
//     then the next chunk. A find or an erase of a key whose insert was
//     deferred, in the same chunk, applies before that insert: the find
//     returns absent, the erase reports kHashAbsent, and the key ends present
//     with the insert's value (kHashInserted). That is one of the orders the
//     semantics below allow (insert and erase of one key in one batch apply
//     in some order; a find racing an insert returns absent or the value).
//     Counts stay exact: each insert reports and counts its own outcome, in
//     whichever pass settles it. With the whole batch as one chunk, every
//     deferred insert applies after every find and erase of the batch, and
//     it meets all of the batch's erases' dead slots: a queued insert reuses
//     one of its 16 slots far more often than after a quarter of the batch's
//     erases (step 28), and moves keys less.
//
// Semantics of concurrent operations on one key (as hopscotch_map): an insert
// racing an insert leaves one of the two values and counts one key added; a
// find racing an insert returns the new value or "absent"; a find racing an
// erase returns the old value or "absent"; an insert and an erase of one key
// in one batch apply in some order (insert first: the key ends absent and the
// erase reports it removed; erase first: the erase reports it absent (or the
// older entry removed) and the key ends present).
//
// The host API follows primitives/hash/contract.cuh (per-call hash_counts,
// insert returning the keys added and throwing when full, const finds, refs
// with only the operations asked for, a stream argument throughout).
#pragma once

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "primitives/common/device_buffer.hpp"
#include "primitives/hash/contract.cuh"
#include "primitives/hash/hash_functions.cuh"

namespace graphkit {

/// Slots per bucket (64 bytes) and threads per operation (16 bytes each).
inline constexpr int kCuckooBucketSlots = 8;
inline constexpr int kCuckooTile = 4;
/// An insert's path of moves holds at most kMaxEvictionDepth + 1 moves.
inline constexpr int kMaxEvictionDepth = 2;
/// Tries of a locked insert whose path was blocked by other inserts' locks;
/// after the last one it fails and sets the launch's give-up flag.
inline constexpr unsigned kCuckooMaxInsertAttempts = 64;
/// Bucket reads one locked try may spend looking for a path (the first two
/// levels of the breadth-first-per-level search take 1 + 8 + 8 * 9 = 81).
inline constexpr int kCuckooSearchBudget = 128;
/// Bucket reads one try of the insert-only path may spend (its search
/// deepens one move at a time, so it reads the short paths again; a
/// sequential model of it needs at most 190 per insert filling 2^23 slots to
/// load 0.97, and 330 to 0.98, where 256 fails 3 inserts in 10^6).
inline constexpr int kCuckooAloneSearchBudget = 256;
/// The same in the bulk insert's last pass, where one tile settles the
/// inserts that the parallel passes left, in order, alone: they come after
/// every other insert of their chunk, into the fullest table any of them
/// meets, so they need longer searches than the sequential model's. With
/// every lock of the parallel passes forced busy (kForceBlocked), filling
/// 2^20 slots to 0.97 at 256 failed about one seed in 17 (an insert found
/// no path within its budget, and the give-up flag failed the 1,906 after
/// it). 2,048 is more than a whole search reads (paths of one, two and
/// three moves from each bucket, each depth reading the shorter paths
/// again: at most 2 x (8 + 80 + 656) + 1 = 1,489 buckets), so the last
/// pass fails an insert only where no path of up to three moves exists. Only
/// the hard inserts spend it: a full table's first failure sets the flag,
/// after which the rest fail at once.
inline constexpr int kCuckooSoleSearchBudget = 2048;
/// Tries of a deferred insert in the bulk insert's second pass whose path was
/// blocked by other tiles' locks; after the last one (or a try that found no
/// path) the insert goes to the chunk's last pass, where one tile settles
/// such inserts alone, in order: whether an insert fails never depends on
/// how other tiles were scheduled.
inline constexpr unsigned kCuckooSettleTries = 16;
/// Tries of a deferred insert in the fast settle pass (settle_fast_kernel)
/// that found bucket 1's lock held: one per step of its warp, never waiting
/// (the holder is a tile of the same pass, done within its own step); after
/// the last one the insert is left to settle_kernel, which waits for locks.
inline constexpr unsigned kCuckooFastTries = 4;
/// A bulk insert takes its keys a chunk at a time: slots / 4 keys (at least
/// 4096, at most 2^30), each chunk a first pass of lock-free claims and a
/// second over the inserts it deferred. The overflow list between them holds
/// a chunk's worth of 4-byte input indices: a byte per slot, allocated with
/// the table.
inline constexpr std::size_t kCuckooInsertChunkDivisor = 4;
inline constexpr std::size_t kCuckooInsertChunkMin = 4096;
inline constexpr std::size_t kCuckooInsertChunkMax = std::size_t{1} << 30;
/// Sleeps a find that missed in both buckets (in a kernel with writers) waits
/// at most for each bucket's lock to be seen free before it reads them again.
inline constexpr unsigned kCuckooRecheckSpins = 256;
/// How a find where nothing writes reads a bucket (issue 18, step 23): whole
/// (a 16-byte load per thread, the bucket's two 32-byte sectors at once), or
/// by halves (an 8-byte load per thread: slots 0-3, one sector, and slots 4-7
/// only when the first half is full without the key; the header's "Finds by
/// half buckets"). Finds in kernels with writers always read whole buckets.
enum class cuckoo_find_read { whole, halves };
/// The bulk finds' and read-only refs' default: halves (a sequential model
/// of the insert puts 60% of the first-bucket keys in slots 0-3 at load 0.9:
/// 1.70 sectors per hit against 2.25).
inline constexpr cuckoo_find_read kCuckooFindRead = cuckoo_find_read::halves;
/// The bulk erase's default (issue 18, step 24): halves too. Its kernel runs
/// alone, so its erases read buckets as the read-only finds do (locate_halves)
/// and then CAS the one slot; set_erase_read() selects whole-bucket reads.
inline constexpr cuckoo_find_read kCuckooEraseRead = cuckoo_find_read::halves;
/// Slots in a half bucket: one per tile thread, one 32-byte sector.
inline constexpr int kCuckooHalfSlots = kCuckooBucketSlots / 2;
static_assert(kCuckooHalfSlots == kCuckooTile, "a half bucket is one slot per tile thread");

namespace cuckoo_detail {
/// Bits 0..3 of m spread to the even bits 0, 2, 4, 6.
__host__ __device__ constexpr unsigned spread4(unsigned m) {
  return (m & 1u) | ((m & 2u) << 1) | ((m & 4u) << 2) | ((m & 8u) << 3);
}
/// The second hash's seed (key ^ seed, then the map's hash).
inline constexpr std::uint32_t kSecondSeed = 0x9e3779b9u;
/// Outcomes inside the map (the contract's hash_outcome values plus these).
inline constexpr std::uint32_t kRestart = 0xfffffff0u;   ///< a slot changed under us: read again
inline constexpr std::uint32_t kBlocked = 0xfffffff1u;   ///< a path needed a lock another insert held
inline constexpr std::uint32_t kFull = 0xfffffff2u;      ///< every empty slot tried was taken by other keys
inline constexpr std::uint32_t kDeferred = 0xfffffff3u;  ///< both buckets full without the key: moves needed
inline constexpr std::uint32_t kGaveUp = 0xfffffff4u;    ///< the launch's give-up flag was set: failed, flag set
/// A test hook: a Hash type with `static constexpr bool kCuckooForceBlocked =
/// true` makes every try_lock of the bulk insert's parallel passes (the fast
/// settle pass and settle_kernel) find the lock held (a legal schedule:
/// another tile could hold it), so the fast pass leaves every insert and
/// settle_kernel's blocked inserts must all be settled by the last pass.
template <class Hash>
inline constexpr bool kForceBlocked = [] {
  if constexpr (requires { Hash::kCuckooForceBlocked; }) return static_cast<bool>(Hash::kCuckooForceBlocked);
  else return false;
}();
/// A test hook: a Hash type with `static constexpr bool kCuckooForceLeave =
/// true` makes the fast settle pass (settle_fast_kernel) leave every insert
/// of an odd input index to the locked pass untried (a legal outcome: its
/// b1 lock could have been held for every try), so that the hand-over
/// between the two runs on every batch, copies of one key split across them.
template <class Hash>
inline constexpr bool kForceLeave = [] {
  if constexpr (requires { Hash::kCuckooForceLeave; }) return static_cast<bool>(Hash::kCuckooForceLeave);
  else return false;
}();
}  // namespace cuckoo_detail

template <class Key, class Value, class Hash = murmur3_hash, hash_ops Ops = hash_ops::all>
struct bucketed_cuckoo_ref {
  static_assert(sizeof(Key) == 4 && std::is_integral_v<Key> && std::is_unsigned_v<Key>, "32-bit unsigned keys");
  static_assert(sizeof(Value) == 4 && std::is_integral_v<Value>, "32-bit integer values");
  using slot = hash_slot<Key, Value>;
  using value_type = Value;
  static_assert(sizeof(slot) == 8 && alignof(slot) == 8, "a slot is one 64-bit word");
  using slot_pointer = std::conditional_t<writes_table(Ops), slot*, const slot*>;
  using lock_pointer = std::conditional_t<writes_table(Ops), unsigned*, const unsigned*>;
  using tile_type = cooperative_groups::thread_block_tile<kCuckooTile>;
  using word = unsigned long long;
  static constexpr bool kWrites = writes_table(Ops);
  /// The kForceLeave test hook: the fast settle pass leaves odd input indices to the locked pass.
  static constexpr bool kFastLeavesOdd = cuckoo_detail::kForceLeave<Hash>;

  /// buckets * 8 slots, 64-byte aligned (cudaMalloc gives 256).
  slot_pointer slots;
  std::uint32_t buckets;  ///< at least 2
  /// One lock word per bucket (0 free, 1 held); the full-bucket insert paths
  /// and erase_locked take them, find_again reads them. locks[buckets] is the
  /// give-up flag: set when an insert found no room (or its tries ran out),
  /// so that later full-bucket inserts fail at once instead of searching a
  /// full table; cleared by clear() and at the start of every insert_async /
  /// apply_async.
  lock_pointer locks;
  Key empty_key;
  Value empty_value;
  /// Where the locked path counts its moves (hash_detail::kDisplacements), or
  /// nullptr (the bulk insert counts its moves in the kernel).
  unsigned long long* stats;

  // ---- words and buckets -------------------------------------------------------

  [[nodiscard]] __host__ __device__ static word pack(Key k, Value v) {
    return (static_cast<word>(static_cast<std::uint32_t>(v)) << 32) | static_cast<std::uint32_t>(k);
  }
  [[nodiscard]] __host__ __device__ static Key key_of(word w) {
    return static_cast<Key>(static_cast<std::uint32_t>(w));
  }
  [[nodiscard]] __host__ __device__ static Value value_of(word w) {
    return static_cast<Value>(static_cast<std::uint32_t>(w >> 32));
  }
  [[nodiscard]] __host__ __device__ Key tombstone_key() const { return static_cast<Key>(empty_key - 1); }
  [[nodiscard]] __host__ __device__ word empty_word() const { return pack(empty_key, empty_value); }
  [[nodiscard]] __host__ __device__ word tombstone_word() const { return pack(tombstone_key(), empty_value); }

  /// The key's first bucket (multiply-high range reduction of its hash).
  [[nodiscard]] __host__ __device__ std::uint32_t first_bucket(Key k) const {
    return static_cast<std::uint32_t>((std::uint64_t{Hash{}(static_cast<std::uint32_t>(k))} * buckets) >> 32);
  }
  /// The key's second bucket, never its first: a second hash over the other buckets.
  [[nodiscard]] __host__ __device__ std::uint32_t second_bucket(Key k, std::uint32_t first) const {
    const std::uint32_t h = Hash{}(static_cast<std::uint32_t>(k) ^ cuckoo_detail::kSecondSeed);
    const auto b = static_cast<std::uint32_t>((std::uint64_t{h} * (buckets - 1)) >> 32);
    return b >= first ? b + 1 : b;
  }
  [[nodiscard]] __device__ word* word_at(std::uint32_t bucket, unsigned i) const requires(kWrites) {
    return reinterpret_cast<word*>(slots) + std::size_t{bucket} * kCuckooBucketSlots + i;
  }

  /// What a tile read of one bucket saw: each lane's two slots, and masks of
  /// the bucket's 8 slots (bit i: slot i), the same in every lane.
  struct view {
    word w[2];
    unsigned match;  ///< slots holding the key (live or dead)
    unsigned empty;  ///< empty slots
  };
  /// Reads bucket b, lane r taking slots 2r and 2r + 1 in one 16-byte load. A
  /// read-only ref (no writer in its kernel) loads plainly; a writing ref's
  /// loads are relaxed at GPU scope, ordered with the atomics in the model.
  [[nodiscard]] __device__ view read_bucket(const tile_type& tile, std::uint32_t b, Key k) const {
    return make_view(tile, load_quarter(b, tile.thread_rank()), k);
  }
  /// Lane `rank`'s 16 bytes of bucket b (slots 2 rank, 2 rank + 1).
  [[nodiscard]] __device__ ulonglong2 load_quarter(std::uint32_t b, unsigned rank) const {
    const auto* p = reinterpret_cast<const ulonglong2*>(slots + std::size_t{b} * kCuckooBucketSlots) + rank;
    if constexpr (kWrites) {
      ulonglong2 q;
      asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(q.x), "=l"(q.y) : "l"(p));
      return q;
    } else {
      return *p;
    }
  }
  /// The votes of a tile's quarters of one bucket, for key k.
  [[nodiscard]] __device__ view make_view(const tile_type& tile, ulonglong2 q, Key k) const {
    view v;
    v.w[0] = q.x;
    v.w[1] = q.y;
    v.match = vote(tile, key_of(q.x) == k, key_of(q.y) == k);
    v.empty = empties(tile, q);
    return v;
  }
  /// The empty slots of a bucket from its quarters.
  [[nodiscard]] __device__ unsigned empties(const tile_type& tile, ulonglong2 q) const {
    return vote(tile, q.x == empty_word(), q.y == empty_word());
  }
  /// The slots of a bucket for which each lane's two conditions (its slots 2 rank, 2 rank + 1) hold.
  [[nodiscard]] __device__ static unsigned vote(const tile_type& tile, bool even, bool odd) {
    return cuckoo_detail::spread4(tile.ballot(even)) | (cuckoo_detail::spread4(tile.ballot(odd)) << 1);
  }
  /// Slot i's word as the read saw it, in every lane (i the same in all).
  [[nodiscard]] __device__ static word word_of(const tile_type& tile, const view& v, unsigned i) {
    return tile.shfl((i & 1u) ? v.w[1] : v.w[0], static_cast<int>(i >> 1));
  }
  [[nodiscard]] __device__ static unsigned lowest(unsigned mask) { return static_cast<unsigned>(__ffs(mask) - 1); }
  /// Orders this thread's earlier loads before its later ones (and its writes
  /// before its later writes), at GPU scope.
  __device__ static void fence() { __threadfence(); }
  /// Orders this thread's earlier loads and writes before its later ones at
  /// GPU scope without a sequentially consistent fence (fence.acq_rel: with
  /// relaxed atomics, a release before a lock's release, an acquire after its
  /// taking, the copy before the original's end in a move). Enough where only
  /// lock holders and claims meet (the bulk insert's later passes); fence()'s
  /// fence.sc stays wherever a find or an erase may run.
  __device__ static void fence_light() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

  // ---- find ------------------------------------------------------------------------

  /// The value of k, or empty_value when k is absent (or erased). All tile
  /// threads call it. A ref that writes reads whole buckets (find_whole); a
  /// read-only one (no writer in its kernel) as kCuckooFindRead says.
  [[nodiscard]] __device__ Value find(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::find)) {
    if constexpr (!kWrites && kCuckooFindRead == cuckoo_find_read::halves) return find_halves(tile, k);
    else return find_whole(tile, k);
  }
  [[nodiscard]] __device__ bool contains(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::find)) {
    return find(tile, k) != empty_value;
  }
  /// find by whole-bucket reads: bucket 1, then bucket 2 when bucket 1 is full without k.
  [[nodiscard]] __device__ Value find_whole(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::find)) {
    const std::uint32_t b1 = first_bucket(k);
    view v = read_bucket(tile, b1, k);
    if (v.match != 0) return value_of(word_of(tile, v, lowest(v.match)));
    if (v.empty != 0) {
      if constexpr (!kWrites) return empty_value;
      // Writers in this kernel: confirm the empty slot after the search (see the header).
      fence();
      v = read_bucket(tile, b1, k);
      if (v.match != 0) return value_of(word_of(tile, v, lowest(v.match)));
      if (v.empty != 0) return empty_value;
    }
    if constexpr (kWrites) fence();  // bucket 1 before bucket 2: a move's copy is seen if its old slot was not
    const std::uint32_t b2 = second_bucket(k, b1);
    const view v2 = read_bucket(tile, b2, k);
    if (v2.match != 0) return value_of(word_of(tile, v2, lowest(v2.match)));
    if constexpr (kWrites) return find_again(tile, k, b1, b2);
    return empty_value;
  }
  /// find by half buckets, where nothing writes (the header's "Finds by half
  /// buckets"): locate_halves, then k's value (a dead key: absent). The same
  /// answer as find_whole, one sector at a time. A writing ref calls it only
  /// where the kernel's writes are claims and value changes (a mixed batch's
  /// first pass; the header's "Mixed batches in two passes" says why it is
  /// sound there).
  [[nodiscard]] __device__ Value find_halves(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::find)) {
    const half_hit h = locate_halves(tile, k);
    return h.found ? value_of(h.w) : empty_value;
  }
  /// Where locate_halves found k: bucket b, slot i, and the word it read
  /// there (in every lane); found false when k is in neither bucket.
  struct half_hit {
    word w;
    std::uint32_t b;
    unsigned i;
    bool found;
  };
  /// Looks for k by half buckets, in a kernel where no write adds, moves or
  /// reuses anything (the read-only finds; the bulk erase, whose erases only
  /// turn live values dead): slots 0-3 of bucket 1, thread r loading slot r
  /// (8 bytes; the tile's four loads are one 32-byte sector), then slots 4-7,
  /// then bucket 2 the same way. A match ends it at the lowest matching slot
  /// (live or dead); so does an empty slot in the half just read (slots fill
  /// in order, so the rest of that bucket is empty, and a bucket with an empty
  /// slot sent no key to its second); else the next half. The slot a
  /// whole-bucket read (bucket 1, then 2, lowest match) would pick.
  [[nodiscard]] __device__ half_hit locate_halves(const tile_type& tile, Key k) const {
    const std::uint32_t b1 = first_bucket(k);
    std::uint32_t b = b1;
#pragma unroll
    for (unsigned half = 0; half < 4; ++half) {
      if (half == 2) b = second_bucket(k, b1);
      const unsigned first = (half & 1u) * kCuckooHalfSlots;
      const word w = load_slot(b, first + tile.thread_rank());
      const unsigned match = tile.ballot(key_of(w) == k);
      if (match != 0) {
        const unsigned r = lowest(match);
        return {tile.shfl(w, static_cast<int>(r)), b, first + r, true};
      }
      if (tile.any(w == empty_word())) break;
    }
    return {0, b, 0, false};
  }
  /// Slot i of bucket b, by one 8-byte load: plain for a read-only ref
  /// (nothing writes in its kernel), relaxed at GPU scope for a writing one
  /// (the bulk erase, where other erases' CASes run).
  [[nodiscard]] __device__ word load_slot(std::uint32_t b, unsigned i) const {
    const word* p = reinterpret_cast<const word*>(slots) + std::size_t{b} * kCuckooBucketSlots + i;
    if constexpr (kWrites) {
      word w;
      asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p));
      return w;
    } else {
      return *p;
    }
  }

  // ---- atomics of the tile's first thread ------------------------------------------

  [[nodiscard]] __device__ word cas(std::uint32_t b, unsigned i, word expected, word desired) const requires(kWrites) {
    return atomicCAS(word_at(b, i), expected, desired);
  }
  /// Sets the value of k's slot (b, i), which was seen as `seen`: kHashInserted
  /// (it was dead), kHashUpdated, or kRestart when the slot no longer holds k.
  [[nodiscard]] __device__ std::uint32_t set_value(std::uint32_t b, unsigned i, word seen, Key k, Value v) const
      requires(kWrites) {
    for (;;) {
      const word old = cas(b, i, seen, pack(k, v));
      if (old == seen) return value_of(seen) == empty_value ? kHashInserted : kHashUpdated;
      if (key_of(old) != k) return cuckoo_detail::kRestart;
      seen = old;  // another insert or an erase changed the value: again from what is there
    }
  }
  /// Empties the value of k's slot (b, i), seen as `seen`: kHashErased, kHashAbsent
  /// (dead already), or kRestart when the slot no longer holds k.
  [[nodiscard]] __device__ std::uint32_t kill(std::uint32_t b, unsigned i, word seen, Key k) const requires(kWrites) {
    for (;;) {
      if (value_of(seen) == empty_value) return kHashAbsent;
      const word old = cas(b, i, seen, pack(k, empty_value));
      if (old == seen) return kHashErased;
      if (key_of(old) != k) return cuckoo_detail::kRestart;
      seen = old;
    }
  }
  /// Tries the empty slots in `empties` in ascending order for {k, v}: kHashInserted,
  /// kHashUpdated / kHashInserted when a CAS found k there (`settled`: k there is
  /// no move's copy; else the caller reads again: kRestart), or kFull when
  /// other keys took them all. Then the bucket is full without reading it
  /// again: its other slots were taken when read, and slots never empty.
  [[nodiscard]] __device__ std::uint32_t claim(std::uint32_t b, unsigned empties, Key k, Value v, bool settled) const
      requires(kWrites) {
    for (; empties != 0; empties &= empties - 1) {
      const unsigned i = lowest(empties);
      const word old = cas(b, i, empty_word(), pack(k, v));
      if (old == empty_word()) return kHashInserted;
      if (key_of(old) == k) return settled ? set_value(b, i, old, k, v) : cuckoo_detail::kRestart;
    }
    return cuckoo_detail::kFull;
  }
  /// A move's copy: the first of the empty slots in `empties` of bucket b that
  /// takes w (ascending, as claim), or -1 when other keys took them all or w's
  /// key turned up in one (another copy of it is there).
  [[nodiscard]] __device__ int claim_for(std::uint32_t b, unsigned empties, word w) const requires(kWrites) {
    for (; empties != 0; empties &= empties - 1) {
      const word old = cas(b, lowest(empties), empty_word(), w);
      if (old == empty_word()) return static_cast<int>(lowest(empties));
      if (key_of(old) == key_of(w)) return -1;
    }
    return -1;
  }
  /// Finishes a move, first thread only: the moved key's copy is in slot
  /// `copy` of bucket y; its original, seen as `moving` in slot c of bucket x,
  /// becomes `replacement`. Only the mover takes a key out of a bucket (under
  /// that bucket's lock), so a failed CAS means the original's value changed
  /// (an insert or erase acts on the original while it is there): the change
  /// goes to the copy first, and the CAS is tried again, so the copy keeps the
  /// latest value. The fences put the copy before the original's end: a reader
  /// that no longer sees the original sees the copy.
  __device__ void hand_over(std::uint32_t x, unsigned c, word moving, word replacement, std::uint32_t y, unsigned copy,
                            bool light = false) const requires(kWrites) {
    light ? fence_light() : fence();
    replace_original(x, c, moving, replacement, y, copy, light);
  }
  /// hand_over after its first fence: the CAS of the original, and a value
  /// change carried to the copy when the CAS meets one (then fenced as
  /// `light` says). The fast settle pass calls it without the first fence:
  /// no reader there needs the copy before the original's end (the header's
  /// "Fast settle pass").
  __device__ void replace_original(std::uint32_t x, unsigned c, word moving, word replacement, std::uint32_t y,
                                   unsigned copy, bool light = true) const requires(kWrites) {
    for (;;) {
      const word old = cas(x, c, moving, replacement);
      if (old == moving || key_of(old) != key_of(moving)) return;  // done (a key change cannot happen: see above)
      (void)cas(y, copy, moving, old);
      light ? fence_light() : fence();
      moving = old;
    }
  }

  /// All tile threads: the tile's first thread computes `f()`; every thread gets it.
  template <class F>
  __device__ static std::uint32_t lead(const tile_type& tile, F&& f) {
    std::uint32_t out = 0;
    if (tile.thread_rank() == 0) out = f();
    return tile.shfl(out, 0);
  }
  /// Sets k's value where view v (of bucket b) matched it: set_value's outcome.
  [[nodiscard]] __device__ std::uint32_t update_at(const tile_type& tile, std::uint32_t b, const view& v, Key k,
                                                   Value value) const requires(kWrites) {
    const unsigned i = lowest(v.match);
    const word seen = word_of(tile, v, i);
    return lead(tile, [&] { return set_value(b, i, seen, k, value); });
  }
  /// A slot index from the tile's first thread (-1 for none), in every thread.
  template <class F>
  __device__ static int lead_slot(const tile_type& tile, F&& f) {
    return static_cast<int>(lead(tile, [&] { return static_cast<std::uint32_t>(f()); }));
  }

  /// Whether k is gone from bucket b1 (read again after a fence): an operation
  /// that found k only in its second bucket acts there only then.
  [[nodiscard]] __device__ bool gone_from_first(const tile_type& tile, std::uint32_t b1, Key k) const {
    fence();
    return read_bucket(tile, b1, k).match == 0;
  }

  // ---- insert ----------------------------------------------------------------------

  /// Inserts or overwrites, in a kernel where other operations may run:
  /// kHashInserted (k had no live value), kHashUpdated, or kHashFailed (no
  /// room could be made). All tile threads call it.
  __device__ std::uint32_t insert(const tile_type& tile, Key k, Value v) const requires(has_op(Ops, hash_ops::insert)) {
    const std::uint32_t r = insert_lock_free(tile, k, v);
    if (r != cuckoo_detail::kDeferred) return r;
    const std::uint32_t b1 = first_bucket(k);
    return insert_locked(tile, k, v, b1, second_bucket(k, b1));
  }

  /// The lock-free part of every insert: an update where k is, or a claim of
  /// an empty slot of bucket 1, else of bucket 2. kDeferred when both buckets
  /// are full without k: the caller goes on with insert_locked or, in a
  /// kernel where only inserts run, insert_alone_deferred.
  __device__ std::uint32_t insert_lock_free(const tile_type& tile, Key k, Value v) const
      requires(has_op(Ops, hash_ops::insert)) {
    const std::uint32_t b1 = first_bucket(k), b2 = second_bucket(k, b1);
    for (;;) {
      const view x = read_bucket(tile, b1, k);
      std::uint32_t r = cuckoo_detail::kFull;
      if (x.match != 0) {
        r = update_at(tile, b1, x, k, v);
      } else if (x.empty != 0) {
        r = lead(tile, [&] { return claim(b1, x.empty, k, v, true); });
      }
      if (r == cuckoo_detail::kFull) r = insert_second(tile, k, v, b1, b2);
      if (r != cuckoo_detail::kRestart) return r;
    }
  }
  /// insert_lock_free once bucket 1 is full without k: the same in bucket 2,
  /// where k may be a move's copy while its original is still in bucket 1 (an
  /// insert acts on the original then: kRestart); kDeferred when it is full.
  __device__ std::uint32_t insert_second(const tile_type& tile, Key k, Value v, std::uint32_t b1,
                                         std::uint32_t b2) const requires(kWrites) {
    fence();  // bucket 1 before bucket 2: a move's copy is seen if its original was not
    const view y = read_bucket(tile, b2, k);
    if (y.match != 0) return gone_from_first(tile, b1, k) ? update_at(tile, b2, y, k, v) : cuckoo_detail::kRestart;
    if (y.empty == 0) return cuckoo_detail::kDeferred;
    const std::uint32_t r = lead(tile, [&] { return claim(b2, y.empty, k, v, false); });
    return r == cuckoo_detail::kFull ? cuckoo_detail::kDeferred : r;
  }

  /// insert_lock_free in the first pass of the bulk insert and of a mixed
  /// batch in two passes (the header's "Bulk insert in passes" and "Mixed
  /// batches in two passes"): only such claims run in its kernel, and a mixed
  /// batch's finds and erases (which change values only), so no key moves and
  /// no slot is reused. A slot's key, once written,
  /// stays, and a key found is in its only slot: bucket 2 is read without a
  /// fence after bucket 1 and a match there is updated without looking at
  /// bucket 1 again. kDeferred when both buckets are full without k (for the
  /// whole kernel: slots only fill, and k could only come in by a claim).
  __device__ std::uint32_t insert_claim_only(const tile_type& tile, Key k, Value v) const
      requires(has_op(Ops, hash_ops::insert)) {
    const std::uint32_t b1 = first_bucket(k);
    for (;;) {  // kRestart (a slot's key changed) cannot happen here; looping keeps the outcome right anyway
      std::uint32_t r = cuckoo_detail::kFull;
      const view x = read_bucket(tile, b1, k);
      if (x.match != 0) {
        r = update_at(tile, b1, x, k, v);
      } else if (x.empty != 0) {
        r = lead(tile, [&] { return claim(b1, x.empty, k, v, true); });
      }
      if (r == cuckoo_detail::kFull) {
        const std::uint32_t b2 = second_bucket(k, b1);
        const view y = read_bucket(tile, b2, k);
        if (y.match != 0) {
          r = update_at(tile, b2, y, k, v);
        } else if (y.empty != 0) {
          r = lead(tile, [&] { return claim(b2, y.empty, k, v, true); });
        }
        if (r == cuckoo_detail::kFull) return cuckoo_detail::kDeferred;
      }
      if (r != cuckoo_detail::kRestart) return r;
    }
  }

  // ---- erase -----------------------------------------------------------------------

  /// Removes k's value (the key stays, dead, in its slot); true if a live value was removed.
  __device__ bool erase(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::erase)) {
    const std::uint32_t b1 = first_bucket(k), b2 = second_bucket(k, b1);
    for (;;) {
      view x = read_bucket(tile, b1, k);
      if (x.empty != 0 && x.match == 0) {
        fence();  // confirm the empty slot after the search (see the header)
        x = read_bucket(tile, b1, k);
        if (x.empty != 0 && x.match == 0) return false;
      }
      std::uint32_t r = cuckoo_detail::kRestart;
      if (x.match != 0) {
        const unsigned i = lowest(x.match);
        const word seen = word_of(tile, x, i);
        r = lead(tile, [&] { return kill(b1, i, seen, k); });
      } else {
        fence();
        const view y = read_bucket(tile, b2, k);
        if (y.match == 0) return erase_locked(tile, k, b1, b2);
        if (gone_from_first(tile, b1, k)) {
          const unsigned i = lowest(y.match);
          const word seen = word_of(tile, y, i);
          r = lead(tile, [&] { return kill(b2, i, seen, k); });
        }
      }
      if (r != cuckoo_detail::kRestart) return r == kHashErased;
    }
  }

  /// Erase in a kernel where only erases run (the bulk erase_kernel): no
  /// insert adds, moves or reuses anything meanwhile, and erases only turn live
  /// values dead, so one read of a bucket is its state for k: no fences, no
  /// confirming reads. Read says how: whole buckets, or half by half
  /// (locate_halves, as the read-only finds: erases never empty a slot, so
  /// the slot-prefix invariant holds throughout the kernel). Then one kill.
  /// Also a mixed batch's first pass (halves), where claims add keys too: the
  /// header's "Mixed batches in two passes" says why that is sound.
  template <cuckoo_find_read Read = kCuckooEraseRead>
  __device__ bool erase_alone(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::erase)) {
    if constexpr (Read == cuckoo_find_read::halves) {
      const half_hit h = locate_halves(tile, k);
      if (!h.found) return false;
      return lead(tile, [&] { return kill(h.b, h.i, h.w, k); }) == kHashErased;
    } else {
      return erase_alone_whole(tile, k);
    }
  }
  /// erase_alone by whole-bucket reads (steps 11-23's bulk erase).
  __device__ bool erase_alone_whole(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::erase)) {
    const std::uint32_t b1 = first_bucket(k);
    const view x = read_bucket(tile, b1, k);
    std::uint32_t b = b1;
    word seen = 0;
    unsigned i = 0;
    if (x.match != 0) {
      i = lowest(x.match);
      seen = word_of(tile, x, i);
    } else {
      if (x.empty != 0) return false;
      b = second_bucket(k, b1);
      const view y = read_bucket(tile, b, k);
      if (y.match == 0) return false;
      i = lowest(y.match);
      seen = word_of(tile, y, i);
    }
    return lead(tile, [&] { return kill(b, i, seen, k); }) == kHashErased;
  }

  /// The last word on a find that missed k in both buckets while writers run
  /// (kWrites): wait until each bucket's lock has been seen free once (any move
  /// of k holds both locks, so one in flight at the miss is over, and a key in
  /// its second bucket never moves again), then read both buckets once more.
  /// Bounded: after kCuckooRecheckSpins sleeps it reads again anyway.
  __device__ __noinline__ Value find_again(const tile_type& tile, Key k, std::uint32_t b1, std::uint32_t b2) const
      requires(kWrites) {
    (void)lead(tile, [&]() -> std::uint32_t {
      for (const std::uint32_t b : {b1, b2})
        for (unsigned spin = 0; lock_word(b) != 0u && spin < kCuckooRecheckSpins; ++spin)
          __nanosleep(32u << min(spin, 5u));
      fence();
      return 0u;
    });
    fence();
    const view x = read_bucket(tile, b1, k);
    if (x.match != 0) return value_of(word_of(tile, x, lowest(x.match)));
    if (x.empty != 0) return empty_value;
    fence();
    const view y = read_bucket(tile, b2, k);
    return y.match != 0 ? value_of(word_of(tile, y, lowest(y.match))) : empty_value;
  }

  /// The last word on an erase (in a kernel with writers) that missed k in
  /// both buckets: take both buckets' locks (index order, waiting; no insert
  /// of the launch holds one for long, and a holder of both never waits), so
  /// that nothing moves into or out of them or reuses their slots, read both
  /// again and kill k where it is. An erase of an absent key whose first
  /// bucket is full pays this; an erase of a present key almost never does.
  __device__ __noinline__ bool erase_locked(const tile_type& tile, Key k, std::uint32_t b1, std::uint32_t b2) const
      requires(has_op(Ops, hash_ops::erase)) {
    (void)lock_pair(tile, b1, b2, false);
    std::uint32_t r = cuckoo_detail::kRestart;
    while (r == cuckoo_detail::kRestart) {
      const view x = read_bucket(tile, b1, k);
      if (x.match != 0) {
        const unsigned i = lowest(x.match);
        const word seen = word_of(tile, x, i);
        r = lead(tile, [&] { return kill(b1, i, seen, k); });
        continue;
      }
      fence();
      const view y = read_bucket(tile, b2, k);
      if (y.match == 0) {
        r = kHashAbsent;
        break;
      }
      const unsigned i = lowest(y.match);
      const word seen = word_of(tile, y, i);
      r = lead(tile, [&] { return kill(b2, i, seen, k); });
    }
    unlock(tile, b2);
    unlock(tile, b1);
    return r == kHashErased;
  }

  // ---- locks and the give-up flag ---------------------------------------------------------

  /// The give-up flag (locks[buckets]): whether some insert of this launch found the table full.
  [[nodiscard]] __device__ bool gave_up_now() const requires(kWrites) {
    return *reinterpret_cast<const volatile unsigned*>(locks + buckets) != 0u;
  }
  [[nodiscard]] __device__ bool gave_up(const tile_type& tile) const requires(kWrites) {
    return lead(tile, [&]() -> std::uint32_t { return gave_up_now(); }) != 0;
  }
  __device__ void give_up(const tile_type& tile) const requires(kWrites) {
    if (tile.thread_rank() == 0) atomicExch(&locks[buckets], 1u);
  }

  /// A bucket's lock word, read at GPU scope.
  [[nodiscard]] __device__ unsigned lock_word(std::uint32_t b) const requires(kWrites) {
    return *reinterpret_cast<const volatile unsigned*>(locks + b);
  }
  /// Takes bucket b's lock, first thread only, waiting for it; when
  /// `may_give_up`, false (not taken) if the give-up flag is set meanwhile.
  [[nodiscard]] __device__ bool acquire(std::uint32_t b, bool may_give_up) const requires(kWrites) {
    for (unsigned spin = 0; atomicCAS(&locks[b], 0u, 1u) != 0u; ++spin) {
      if (may_give_up && gave_up_now()) return false;
      __nanosleep(32u << min(spin, 6u));
    }
    return true;
  }
  /// Takes the locks of b1 and b2 in index order; when `may_give_up`, false
  /// (holding neither) if the give-up flag is set while it waits.
  [[nodiscard]] __device__ bool lock_pair(const tile_type& tile, std::uint32_t b1, std::uint32_t b2,
                                          bool may_give_up) const requires(kWrites) {
    return lead(tile, [&]() -> std::uint32_t {
             const std::uint32_t lo = b1 < b2 ? b1 : b2, hi = b1 < b2 ? b2 : b1;
             // The holder of both locks only tries further locks, never waits: it always finishes.
             if (!acquire(lo, may_give_up)) return 0u;
             if (!acquire(hi, may_give_up)) {
               atomicExch(&locks[lo], 0u);
               return 0u;
             }
             fence();
             return 1u;
           }) != 0;
  }
  /// Takes bucket b's lock, waiting, as lock_pair (the insert-only path's
  /// bucket 1: its holder too only tries further locks). An acquire fence
  /// only: no find or erase runs with the insert-only path.
  [[nodiscard]] __device__ bool lock_one(const tile_type& tile, std::uint32_t b, bool may_give_up) const
      requires(kWrites) {
    return lead(tile, [&]() -> std::uint32_t {
             if (!acquire(b, may_give_up)) return 0u;
             fence_light();
             return 1u;
           }) != 0;
  }
  __device__ bool try_lock(const tile_type& tile, std::uint32_t b, bool light = false) const requires(kWrites) {
    return lead(tile, [&]() -> std::uint32_t {
             const bool got = atomicCAS(&locks[b], 0u, 1u) == 0u;
             if (got) light ? fence_light() : fence();
             return got;
           }) != 0;
  }
  __device__ void unlock(const tile_type& tile, std::uint32_t b, bool light = false) const requires(kWrites) {
    tile.sync();
    if (tile.thread_rank() == 0) {
      light ? fence_light() : fence();
      atomicExch(&locks[b], 0u);
    }
  }
  /// Tries an insert (`attempt(a)` for tries a = 0, 1, ..., each taking and
  /// releasing its own locks) until it is not blocked by other inserts'
  /// locks: at most kCuckooMaxInsertAttempts tries, with a growing back-off.
  /// The first failure sets the launch's give-up flag.
  template <class Attempt>
  __device__ std::uint32_t with_retries(const tile_type& tile, Attempt&& attempt) const requires(kWrites) {
    for (unsigned a = 0;; ++a) {
      std::uint32_t r = attempt(a);
      if (r == cuckoo_detail::kGaveUp) return kHashFailed;  // the flag is set already
      if (r == cuckoo_detail::kBlocked && a + 1 >= kCuckooMaxInsertAttempts) r = kHashFailed;
      if (r == kHashFailed) give_up(tile);
      if (r != cuckoo_detail::kBlocked) return r;
      __nanosleep(64u << min(a, 6u));
    }
  }
  /// Adds one to a rare-event count of this launch, if it counts.
  __device__ void note(int field) const {
    if (stats != nullptr) atomicAdd(&stats[field], 1ull);
  }

  // ---- what both full-bucket paths share ------------------------------------------------

  /// Slots of a read that another key may take under the lock: dead keys of
  /// others, and tombstones.
  [[nodiscard]] __device__ unsigned reusable(const tile_type& tile, const view& v, Key k) const {
    const auto open = [&](word w) { return key_of(w) != k && key_of(w) != empty_key && value_of(w) == empty_value; };
    return vote(tile, open(v.w[0]), open(v.w[1]));
  }
  /// Puts w into one of the slots in `open` of bucket b, read as v, by CAS
  /// from what the read saw: the slot, or -1 when all were revived meanwhile.
  __device__ int reuse(const tile_type& tile, std::uint32_t b, const view& v, unsigned open, word w) const
      requires(kWrites) {
    for (; open != 0; open &= open - 1) {
      const unsigned i = lowest(open);
      const word seen = word_of(tile, v, i);
      if (lead(tile, [&]() -> std::uint32_t { return cas(b, i, seen, w) == seen; }) != 0) return static_cast<int>(i);
    }
    return -1;
  }
  /// Reuses a dead slot (another key's, or a tombstone) of bucket b1, read as
  /// x, or else of b2, read as y, for {k, v}: kHashInserted; kRestart when all
  /// were revived meanwhile (read again); kFull when there were none.
  __device__ std::uint32_t reuse_dead(const tile_type& tile, Key k, Value v, std::uint32_t b1, const view& x,
                                      std::uint32_t b2, const view& y) const requires(kWrites) {
    const unsigned open1 = reusable(tile, x, k), open2 = reusable(tile, y, k);
    if (open1 != 0 && reuse(tile, b1, x, open1, pack(k, v)) >= 0) return kHashInserted;
    if (open2 != 0 && reuse(tile, b2, y, open2, pack(k, v)) >= 0) return kHashInserted;
    return (open1 | open2) != 0 ? cuckoo_detail::kRestart : cuckoo_detail::kFull;
  }

  /// Puts w (a moved key's copy) into bucket b, read as v: an empty slot
  /// (ascending CAS, racing other claims), else a dead one or a tombstone
  /// (CAS from what the read saw). The slot, or -1.
  __device__ int take_slot(const tile_type& tile, std::uint32_t b, const view& v, word w) const requires(kWrites) {
    const int slot = v.empty != 0 ? lead_slot(tile, [&] { return claim_for(b, v.empty, w); }) : -1;
    if (slot >= 0) return slot;
    const unsigned dead = reusable(tile, v, key_of(w));
    return dead != 0 ? reuse(tile, b, v, dead, w) : -1;
  }

  /// What one try's search for a path carries through its levels.
  struct path_search {
    std::uint32_t held[kMaxEvictionDepth + 3];  ///< buckets this tile holds locked: never moved into
    int held_count;
    int budget;      ///< bucket reads left
    bool blocked;    ///< a lock another tile held was in the way
    unsigned moves;  ///< keys moved (the insert-only path counts them here)
    bool sole;       ///< the only tile of its kernel (the bulk insert's last pass)
    [[nodiscard]] __device__ bool holds(std::uint32_t b) const {
      for (int h = 0; h < held_count; ++h)
        if (held[h] == b) return true;
      return false;
    }
  };
  /// try_lock in the insert-only path (light fences). Under the
  /// kForceBlocked test hook it never takes a lock unless the tile is alone.
  __device__ bool try_lock_alone(const tile_type& tile, std::uint32_t b, const path_search& s) const requires(kWrites) {
    if constexpr (cuckoo_detail::kForceBlocked<Hash>)
      if (!s.sole) return false;
    return try_lock(tile, b, true);
  }
  /// Slots of x's view whose live key lives in its first bucket x and whose
  /// second bucket this tile does not hold: the keys a move may take out of x.
  [[nodiscard]] __device__ unsigned movable(const tile_type& tile, const view& xv, std::uint32_t x,
                                            const path_search& s) const {
    const auto one = [&](word w) {
      const Key j = key_of(w);
      return j != empty_key && j != tombstone_key() && value_of(w) != empty_value && first_bucket(j) == x &&
             !s.holds(second_bucket(j, x));
    };
    return vote(tile, one(xv.w[0]), one(xv.w[1]));
  }
  /// A bucket's slot mask rotated so that bit 0 is slot `start`: the order a
  /// search tries candidates in, varied so that repeated paths spread their
  /// moves; slot_at maps a rotated bit back to its slot.
  [[nodiscard]] __device__ static unsigned rotated(unsigned mask, unsigned start) {
    start &= kCuckooBucketSlots - 1;
    return ((mask >> start) | (mask << (kCuckooBucketSlots - start))) & ((1u << kCuckooBucketSlots) - 1);
  }
  [[nodiscard]] __device__ static unsigned slot_at(unsigned rotated_bit, unsigned start) {
    return (rotated_bit + start) & (kCuckooBucketSlots - 1);
  }

  // ---- the locked path: kernels with finds or erases -----------------------------------------

  /// Places `moving` (key j) in bucket y (locked by this tile). The slot, or -1.
  __device__ int place_in(const tile_type& tile, std::uint32_t y, Key j, word moving) const requires(kWrites) {
    return take_slot(tile, y, read_bucket(tile, y, j), moving);
  }

  /// Frees a slot of bucket x (locked by this tile) by moving one of its keys
  /// that lives in its first bucket to its second. Breadth first within the
  /// level: every candidate's second bucket is tried for a direct move before
  /// any is emptied deeper (Depth more levels), so paths stay short. Each
  /// bucket read spends one of the search's budget. Returns the freed slot
  /// (now a tombstone that only this tile may take) or -1.
  template <int Depth>
  __device__ int make_room(const tile_type& tile, std::uint32_t x, unsigned start, path_search& s) const
      requires(kWrites) {
    if (s.budget <= 0) return -1;
    --s.budget;
    const view xv = read_bucket(tile, x, empty_key);
    if (xv.empty != 0) {
      // x (a deeper level's bucket, locked by us) has an empty slot: take it
      // (a tombstone under our lock) rather than move a key out of x. Moving
      // one out of a bucket that is not full would put it in its second
      // bucket while its first has an empty slot, and every find, erase and
      // insert that sees that empty slot would miss it (round 2's lost keys:
      // pass 1 emptied a bucket that pass 0 had not read, its lock being held).
      return lead_slot(tile, [&] { return claim_for(x, xv.empty, tombstone_word()); });
    }
    const unsigned candidates = rotated(movable(tile, xv, x, s), start);
    constexpr int kPasses = Depth > 0 ? 2 : 1;
    for (int pass = 0; pass < kPasses; ++pass) {
      for (unsigned left = candidates; left != 0; left &= left - 1) {
        if (s.budget <= 0) return -1;
        const unsigned c = slot_at(lowest(left), start);
        const word moving = word_of(tile, xv, c);
        const std::uint32_t y = second_bucket(key_of(moving), x);
        if (!try_lock(tile, y)) {
          s.blocked = true;
          continue;
        }
        int placed = -1;
        if (pass == 0) {
          --s.budget;
          placed = place_in(tile, y, key_of(moving), moving);
        } else if constexpr (Depth > 0) {
          s.held[s.held_count++] = y;
          const int freed = make_room<Depth - 1>(tile, y, start + 3, s);
          --s.held_count;
          if (freed >= 0) {
            // A tombstone under our lock of y: no other tile takes it.
            if (tile.thread_rank() == 0) (void)cas(y, static_cast<unsigned>(freed), tombstone_word(), moving);
            placed = freed;
          }
        }
        if (placed >= 0 && tile.thread_rank() == 0) {
          hand_over(x, c, moving, tombstone_word(), y, static_cast<unsigned>(placed));
          note(hash_detail::kDisplacements);
        }
        unlock(tile, y);
        if (placed >= 0) return static_cast<int>(c);
      }
    }
    return -1;
  }

  /// The insert's path, in kernels where finds or erases run too, when
  /// neither bucket has an empty slot: under the locks of both buckets, look
  /// again, reuse a dead slot or tombstone, or make room. Out of line: the
  /// lock-free fast path keeps its registers and code small. Bounded: a try
  /// spends at most kCuckooSearchBudget bucket reads, a blocked insert tries
  /// at most kCuckooMaxInsertAttempts times, and the first insert that fails
  /// sets the give-up flag, after which every locked insert of the launch
  /// fails at once (a full table fails fast).
  __device__ __noinline__ std::uint32_t insert_locked(const tile_type& tile, Key k, Value v, std::uint32_t b1,
                                                      std::uint32_t b2) const requires(kWrites) {
    return with_retries(tile, [&](unsigned attempt) -> std::uint32_t {
      if (gave_up(tile) || !lock_pair(tile, b1, b2, true)) return cuckoo_detail::kGaveUp;
      const std::uint32_t r = insert_under_locks(tile, k, v, b1, b2, attempt);
      unlock(tile, b2);
      unlock(tile, b1);
      return r;
    });
  }
  /// One try of insert_locked, holding both buckets' locks.
  __device__ std::uint32_t insert_under_locks(const tile_type& tile, Key k, Value v, std::uint32_t b1, std::uint32_t b2,
                                              unsigned attempt) const requires(kWrites) {
    for (;;) {  // again when lock-free claims took our empty slots, or dead slots revived
      std::uint32_t r = cuckoo_detail::kRestart;
      const view x = read_bucket(tile, b1, k);
      if (x.match != 0) {
        r = update_at(tile, b1, x, k, v);
      } else if (x.empty != 0) {
        r = lead(tile, [&] { return claim(b1, x.empty, k, v, true); });
      } else {
        fence();
        const view y = read_bucket(tile, b2, k);
        if (y.match != 0) {  // no move of k can run: it would need our lock of b1
          r = update_at(tile, b2, y, k, v);
        } else if (y.empty != 0) {
          r = lead(tile, [&] { return claim(b2, y.empty, k, v, true); });  // b2 locked: a k found is not a copy
        } else {
          r = reuse_dead(tile, k, v, b1, x, b2, y);
          if (r == cuckoo_detail::kFull) return make_room_locked(tile, k, v, b1, b2, attempt);
        }
      }
      if (r != cuckoo_detail::kRestart && r != cuckoo_detail::kFull) return r;
    }
  }
  /// Room for {k, v} by a path of moves out of bucket 1, else bucket 2 (both locked).
  __device__ std::uint32_t make_room_locked(const tile_type& tile, Key k, Value v, std::uint32_t b1, std::uint32_t b2,
                                            unsigned attempt) const requires(kWrites) {
    path_search s{{b1, b2}, 2, kCuckooSearchBudget, false, 0, false};
    const auto start = static_cast<unsigned>(Hash{}(static_cast<std::uint32_t>(k) + attempt));
    std::uint32_t target = b1;
    int freed = make_room<kMaxEvictionDepth>(tile, b1, start, s);
    if (freed < 0) {
      target = b2;
      freed = make_room<kMaxEvictionDepth>(tile, b2, start + 1, s);
    }
    if (freed < 0) return s.blocked ? cuckoo_detail::kBlocked : kHashFailed;
    if (tile.thread_rank() == 0) (void)cas(target, static_cast<unsigned>(freed), tombstone_word(), pack(k, v));
    return kHashInserted;
  }

  // ---- the insert-only path: the bulk insert kernel ------------------------------------------

  /// An insert that the bulk insert's first pass deferred, in a kernel where
  /// only such inserts run (the header's "inserts alone"): under bucket 1's
  /// lock, an update or a reuse, else room made by moves that take no lock of
  /// the bucket they move into. Adds the keys it moved to `moves`.
  ///   * In the parallel second pass (`sole` false) it never fails on its own:
  ///     a try blocked by other tiles' locks is tried again, at most
  ///     kCuckooSettleTries times, and one that found no path (perhaps
  ///     because other tiles had just taken the slots it read) is not tried
  ///     again: either way it returns kDeferred, for the last pass.
  ///   * In the last pass (`sole`: the only tile running, so no lock is held
  ///     by another and no slot changes under it) its outcome is that of a
  ///     sequential insert: a try that finds no path fails and sets the
  ///     give-up flag.
  /// Once the flag is set (the table is full), tries that wait (for the lock,
  /// or again) or need paths longer than one move fail at once; it is read
  /// only there: one word read by every deferred insert would be a hot spot.
  __device__ __noinline__ std::uint32_t insert_alone_deferred(const tile_type& tile, Key k, Value v, unsigned& moves,
                                                              bool sole) const requires(has_op(Ops, hash_ops::insert)) {
    const std::uint32_t b1 = first_bucket(k), b2 = second_bucket(k, b1);
    const unsigned tries = sole ? kCuckooMaxInsertAttempts : kCuckooSettleTries;
    for (unsigned attempt = 0;; ++attempt) {
      // The last pass reads the flag first: it is alone, so no hot spot, and a full table's leftovers fail at once.
      if (((attempt > 0 || sole) && gave_up(tile)) || !lock_one(tile, b1, true)) return kHashFailed;
      path_search s{{b1}, 1, sole ? kCuckooSoleSearchBudget : kCuckooAloneSearchBudget, false, 0, sole};
      const auto start = static_cast<unsigned>(Hash{}(static_cast<std::uint32_t>(k) + attempt));
      const std::uint32_t r = insert_alone_locked(tile, k, v, b1, b2, start, s);
      unlock(tile, b1, true);
      moves += s.moves;
      if (r == cuckoo_detail::kGaveUp) return kHashFailed;
      const bool no_path = r == kHashFailed || (r == cuckoo_detail::kBlocked && attempt + 1 >= tries);
      if (no_path && !sole) return cuckoo_detail::kDeferred;
      if (no_path) {
        give_up(tile);
        return kHashFailed;
      }
      if (r != cuckoo_detail::kBlocked) return r;
      __nanosleep(64u << min(attempt, 6u));
    }
  }
  /// One try of insert_alone_deferred, holding bucket 1's lock. Under it k
  /// can neither arrive in its buckets (neither has an empty slot, and the
  /// other inserts of k that could reuse or make room wait for this lock)
  /// nor leave them (keys leave bucket 1 only under its lock; a key in its
  /// second bucket never moves), so one read of each, both in flight, decides.
  __device__ std::uint32_t insert_alone_locked(const tile_type& tile, Key k, Value v, std::uint32_t b1,
                                               std::uint32_t b2, unsigned start, path_search& s) const
      requires(kWrites) {
    for (;;) {  // again when dead slots revived under us
      const ulonglong2 q1 = load_quarter(b1, tile.thread_rank()), q2 = load_quarter(b2, tile.thread_rank());
      const view x = make_view(tile, q1, k), y = make_view(tile, q2, k);
      std::uint32_t r = cuckoo_detail::kRestart;
      if (x.match != 0) {
        r = update_at(tile, b1, x, k, v);
      } else if (y.match != 0) {
        r = update_at(tile, b2, y, k, v);
      } else if (x.empty != 0) {  // not expected (both were full), but a claim is always right
        r = lead(tile, [&] { return claim(b1, x.empty, k, v, true); });
      } else if (y.empty != 0) {  // a k found by the claim is no copy: moves of k need our lock
        r = lead(tile, [&] { return claim(b2, y.empty, k, v, true); });
      } else {
        r = reuse_dead(tile, k, v, b1, x, b2, y);
        if (r == cuckoo_detail::kFull) {
          alone_try a{pack(k, v), start, b1, b2, x, {}, 0, false};
          const bool placed = deepen<1>(tile, a, s);
          if (a.b2_lock > 0) unlock(tile, b2, true);
          if (placed) return kHashInserted;
          return a.gave_up ? cuckoo_detail::kGaveUp : s.blocked ? cuckoo_detail::kBlocked : kHashFailed;
        }
      }
      if (r != cuckoo_detail::kRestart && r != cuckoo_detail::kFull) return r;
    }
  }
  /// An insert-only try's two buckets: bucket 1 (locked) and its read, bucket
  /// 2 and its read under its own lock, taken when a path from it is first
  /// needed (b2_lock: 0 not tried, 1 held, -1 held by another tile); and
  /// whether it stopped because another insert had given up.
  struct alone_try {
    word kv;
    unsigned start;
    std::uint32_t b1, b2;
    view x, y;
    int b2_lock;
    bool gave_up;
  };
  /// Paths of Depth moves, then longer ones up to kMaxEvictionDepth + 1:
  /// from bucket 1, then from bucket 2. Shortest first: most deferred inserts
  /// need one move, and a longer path costs more reads and locks. Whether
  /// the new key was placed.
  template <int Depth>
  __device__ bool deepen(const tile_type& tile, alone_try& a, path_search& s) const requires(kWrites) {
    if (put_alone<Depth>(tile, a.b1, a.x, a.kv, a.start, s) >= 0) return true;
    if (a.b2_lock == 0) {
      a.b2_lock = try_lock_alone(tile, a.b2, s) ? 1 : -1;
      if (a.b2_lock > 0) {
        // Read again under its lock: keys may have left it since the first read.
        s.held[s.held_count++] = a.b2;
        --s.budget;
        a.y = read_bucket(tile, a.b2, empty_key);
      } else {
        s.blocked = true;
      }
    }
    if (a.b2_lock > 0 && put_alone<Depth>(tile, a.b2, a.y, a.kv, a.start + 1, s) >= 0) return true;
    if constexpr (Depth <= kMaxEvictionDepth) {
      // Longer paths: rare while the table has room, and a full table's inserts would search them all.
      a.gave_up = gave_up(tile);
      return !a.gave_up && deepen<Depth + 1>(tile, a, s);
    }
    return false;
  }
  /// Puts `incoming` into bucket x, read as xv under x's lock held by this
  /// tile: into an empty or dead slot, else into the slot of one of x's
  /// first-bucket keys, which first moves to its second bucket (copy first),
  /// along a path of at most Depth moves, each out of a bucket this tile
  /// holds locked. The slot, or -1 with nothing changed.
  template <int Depth>
  __device__ int put_alone(const tile_type& tile, std::uint32_t x, const view& xv, word incoming, unsigned start,
                           path_search& s) const requires(kWrites) {
    // When taken meanwhile, x is full: its first-bucket keys in xv are still there (locked).
    if (const int slot = take_slot(tile, x, xv, incoming); slot >= 0) return slot;
    const unsigned candidates = rotated(movable(tile, xv, x, s), start);
    const int moved = move_once(tile, x, xv, candidates, incoming, start, s);
    if constexpr (Depth > 1) {
      if (moved >= 0) return moved;
      for (unsigned left = candidates; left != 0 && s.budget > 0; left &= left - 1) {
        const unsigned c = slot_at(lowest(left), start);
        const word moving = word_of(tile, xv, c);
        const std::uint32_t y = second_bucket(key_of(moving), x);
        if (!try_lock_alone(tile, y, s)) {
          s.blocked = true;
          continue;
        }
        s.held[s.held_count++] = y;
        --s.budget;
        // Read under y's lock: the keys a deeper move takes out of y stay there until it does.
        const int copy = put_alone<Depth - 1>(tile, y, read_bucket(tile, y, empty_key), moving, start + 3, s);
        --s.held_count;
        if (copy >= 0 && tile.thread_rank() == 0)
          hand_over(x, c, moving, incoming, y, static_cast<unsigned>(copy), true);
        unlock(tile, y, true);
        if (copy >= 0) {
          ++s.moves;
          return static_cast<int>(c);
        }
      }
    }
    return moved;
  }
  /// The second bucket of the candidate at the lowest bit of `rotated_left`.
  [[nodiscard]] __device__ std::uint32_t candidate_bucket(const tile_type& tile, std::uint32_t x, const view& xv,
                                                          unsigned rotated_left, unsigned start) const {
    return second_bucket(key_of(word_of(tile, xv, slot_at(lowest(rotated_left), start))), x);
  }
  /// One move out of x (locked by this tile): the first candidate (slots of
  /// x in `candidates`, rotated by `start`) whose second bucket has an empty
  /// or dead slot is copied there (take_slot), and its slot of x takes
  /// `incoming`. The copy needs no lock of its bucket: a lock keeps live keys
  /// in a bucket, and this move takes none out of it; empty slots only fill,
  /// so claiming one is a CAS, as for a new key. The candidates' second
  /// buckets are read kBatch at a time, a 16-byte load per lane each, all in
  /// flight: most deferred inserts find a bucket with room in the first
  /// batch. The slot of x, or -1.
  __device__ int move_once(const tile_type& tile, std::uint32_t x, const view& xv, unsigned candidates, word incoming,
                           unsigned start, path_search& s) const requires(kWrites) {
    constexpr int kBatch = 4;
    // Per batch only the loads stay live; each candidate's word and bucket are found again from `left`.
    for (unsigned left = candidates; left != 0 && s.budget > 0;) {
      ulonglong2 q[kBatch];
      unsigned batch = left;
#pragma unroll
      for (int i = 0; i < kBatch; ++i, batch &= batch - 1)
        if (batch != 0) q[i] = load_quarter(candidate_bucket(tile, x, xv, batch, start), tile.thread_rank());
      s.budget -= __popc(left ^ batch);
#pragma unroll
      for (int i = 0; i < kBatch && left != 0; ++i, left &= left - 1) {
        const view yv = make_view(tile, q[i], empty_key);
        if (yv.empty == 0 && reusable(tile, yv, empty_key) == 0) continue;
        const unsigned c = slot_at(lowest(left), start);
        const word moving = word_of(tile, xv, c);
        const int copy = take_slot(tile, second_bucket(key_of(moving), x), yv, moving);
        if (copy < 0) continue;
        const std::uint32_t y = second_bucket(key_of(moving), x);
        if (tile.thread_rank() == 0) hand_over(x, c, moving, incoming, y, static_cast<unsigned>(copy), true);
        ++s.moves;
        return static_cast<int>(c);
      }
    }
    return -1;
  }

  // ---- the fast settle pass: a deferred insert in a few round trips ---------------------------

  /// What one try of settle_fast did: kHashInserted or kHashUpdated (settled);
  /// kBlocked (bucket 1's lock was held: nothing done); kDeferred (no room
  /// within one move, or a race lost: nothing changed, left to the locked
  /// pass). `moved`: a key moved to make room.
  struct fast_result {
    std::uint32_t outcome;
    bool moved;
  };
  /// One deferred insert of the fast settle pass (the header's "Fast settle
  /// pass"), by all threads of the tile; `active` false: the tile takes part
  /// in the warp's steps with no insert. A fixed sequence of steps, each done
  /// or skipped by the whole tile, none waiting and none looping on memory
  /// (but the short CAS loops of a claim): the 8 tiles of a warp stay in
  /// step, so their loads and atomics go out together and a warp's step costs
  /// the round trips of one insert, not the sum of eight. Steps: bucket 1's
  /// lock (tried once), both buckets read at once, an update / claim / reuse,
  /// one move out of bucket 1, then (bucket 2's lock tried once, bucket 2
  /// read again under it) one move out of bucket 2, unlock.
  __device__ __forceinline__ fast_result settle_fast(const tile_type& tile, Key k, Value v, bool active) const
      requires(has_op(Ops, hash_ops::insert)) {
    const std::uint32_t b1 = first_bucket(k), b2 = second_bucket(k, b1);
    fast_result r{cuckoo_detail::kDeferred, false};
    const bool held1 = active && try_lock_fast(tile, b1);
    if (active && !held1) r.outcome = cuckoo_detail::kBlocked;
    bool held2 = false;
    if (held1) {
      // Under bucket 1's lock k neither arrives nor leaves (insert_alone_locked): one read of each decides.
      const ulonglong2 q1 = load_quarter(b1, tile.thread_rank()), q2 = load_quarter(b2, tile.thread_rank());
      const view x = make_view(tile, q1, k), y = make_view(tile, q2, k);
      r.outcome = settle_direct(tile, k, v, b1, x, b2, y);
      const word kv = pack(k, v);
      const auto start = static_cast<unsigned>(Hash{}(static_cast<std::uint32_t>(k)));
      if (r.outcome == cuckoo_detail::kFull && move_one(tile, b1, x, movable_fast(tile, x, b1, b2), kv, start) >= 0)
        r = {kHashInserted, true};
      if (r.outcome == cuckoo_detail::kFull) {
        held2 = try_lock_fast(tile, b2);
        if (held2) {
          // Read again under its lock: other holders may have moved its keys out since the first read.
          const view y2 = read_bucket(tile, b2, empty_key);
          if (move_one(tile, b2, y2, movable_fast(tile, y2, b2, b1), kv, start + 1) >= 0) r = {kHashInserted, true};
        }
      }
      if (r.outcome == cuckoo_detail::kFull) r.outcome = cuckoo_detail::kDeferred;
      unlock_fast(tile, b1, b2, held2);
    }
    return r;
  }
  /// Bucket b's lock if it is free, first thread only, by one CAS with
  /// acquire semantics (no separate fence): the tile's later reads see what
  /// the last holder wrote before its release. Never under the kForceBlocked
  /// test hook (every lock of the parallel passes looks held).
  [[nodiscard]] __device__ bool try_lock_fast(const tile_type& tile, std::uint32_t b) const requires(kWrites) {
    if constexpr (cuckoo_detail::kForceBlocked<Hash>) return false;
    return lead(tile, [&]() -> std::uint32_t {
             unsigned old = 0;
             const unsigned free = 0u, held = 1u;
             asm volatile("atom.acquire.gpu.global.cas.b32 %0, [%1], %2, %3;"
                          : "=r"(old)
                          : "l"(locks + b), "r"(free), "r"(held)
                          : "memory");
             return old == free;
           }) != 0;
  }
  /// Gives back bucket 1's lock and, when `second`, bucket 2's: one release
  /// fence for both, after every thread of the tile is done reading.
  __device__ void unlock_fast(const tile_type& tile, std::uint32_t b1, std::uint32_t b2, bool second) const
      requires(kWrites) {
    tile.sync();
    if (tile.thread_rank() == 0) {
      fence_light();
      if (second) atomicExch(&locks[b2], 0u);
      atomicExch(&locks[b1], 0u);
    }
  }
  /// settle_fast's step without moves, under bucket 1's lock, from one read
  /// of each bucket: an update where k is (a copy of k placed it; k in bucket
  /// 2 never moves, and in bucket 1 only under our lock), a claim of an empty
  /// slot (none expected: the first pass saw both full, and slots never
  /// empty), or a reuse of a dead slot of either bucket (a mixed batch's
  /// erases). kFull when none applies; kDeferred when a CAS lost to another
  /// tile (a reuse taken; nothing written by this tile).
  __device__ std::uint32_t settle_direct(const tile_type& tile, Key k, Value v, std::uint32_t b1, const view& x,
                                         std::uint32_t b2, const view& y) const requires(kWrites) {
    std::uint32_t r = cuckoo_detail::kFull;
    if (x.match != 0) r = update_at(tile, b1, x, k, v);
    else if (y.match != 0) r = update_at(tile, b2, y, k, v);
    else if (x.empty != 0) r = lead(tile, [&] { return claim(b1, x.empty, k, v, true); });
    else if (y.empty != 0) r = lead(tile, [&] { return claim(b2, y.empty, k, v, true); });
    else r = reuse_dead(tile, k, v, b1, x, b2, y);
    return r == cuckoo_detail::kRestart ? cuckoo_detail::kDeferred : r;
  }
  /// The keys a fast move may take out of x (locked by this tile): live keys
  /// whose first bucket is x, whose second bucket is neither of the insert's
  /// two (both were read without room, and no room appears in them while
  /// only inserts run: slots never empty, and no erase kills a key).
  [[nodiscard]] __device__ unsigned movable_fast(const tile_type& tile, const view& xv, std::uint32_t x,
                                                 std::uint32_t other) const {
    const auto one = [&](word w) {
      const Key j = key_of(w);
      if (j == empty_key || j == tombstone_key() || value_of(w) == empty_value || first_bucket(j) != x) return false;
      const std::uint32_t y = second_bucket(j, x);
      return y != other;  // never x itself: a second bucket differs from the first
    };
    return vote(tile, one(xv.w[0]), one(xv.w[1]));
  }
  /// One move out of x (locked by this tile) for `incoming`: the second
  /// buckets of the candidates (slots of x in `candidates`, rotated by
  /// `start`) are read kBatch at a time, all in flight; the first with an
  /// empty or a dead slot gets a copy of its key (claim_for: ascending CAS
  /// from the read; else a reuse by CAS from the dead word the read saw), and
  /// the key's slot of x then takes `incoming` (replace_original). The copy
  /// is tried for one candidate per batch: a lost race goes on to the next
  /// batch. Every tile of the warp runs the same batches (those done wait),
  /// so their loads go out together. The slot of x, or -1 with nothing
  /// written.
  __device__ int move_one(const tile_type& tile, std::uint32_t x, const view& xv, unsigned candidates, word incoming,
                          unsigned start) const requires(kWrites) {
    constexpr int kBatch = 4;
    for (unsigned left = rotated(candidates, start); left != 0;) {
      ulonglong2 q[kBatch] = {};
      unsigned batch = left;
#pragma unroll
      for (int i = 0; i < kBatch; ++i, batch &= batch - 1)
        if (batch != 0) q[i] = load_quarter(candidate_bucket(tile, x, xv, batch, start), tile.thread_rank());
      // The batch's first candidate with room, and its read: selected, not branched on, per candidate.
      view yv{};
      unsigned open = 0, c = kCuckooBucketSlots;
#pragma unroll
      for (int i = 0; i < kBatch; ++i, left &= left - 1) {
        if (left == 0 || c != kCuckooBucketSlots) continue;
        const view v = make_view(tile, q[i], empty_key);
        const unsigned dead = reusable(tile, v, empty_key);
        if ((v.empty | dead) == 0) continue;
        yv = v, open = dead, c = slot_at(lowest(left), start);
      }
      if (c == kCuckooBucketSlots) continue;
      const word moving = word_of(tile, xv, c);
      const std::uint32_t y = second_bucket(key_of(moving), x);
      int copy = yv.empty != 0 ? lead_slot(tile, [&] { return claim_for(y, yv.empty, moving); }) : -1;
      if (copy < 0 && open != 0) copy = reuse(tile, y, yv, open, moving);
      if (copy < 0) continue;
      if (tile.thread_rank() == 0) replace_original(x, c, moving, incoming, y, static_cast<unsigned>(copy));
      return static_cast<int>(c);
    }
    return -1;
  }
};

template <class Key = std::uint32_t, class Value = std::uint32_t, class Hash = murmur3_hash>
class bucketed_cuckoo_map {
 public:
  template <hash_ops Ops>
  using ref_with = bucketed_cuckoo_ref<Key, Value, Hash, Ops>;
  using ref_type = ref_with<hash_ops::all>;
  using const_ref_type = ref_with<hash_ops::find>;
  using slot = hash_slot<Key, Value>;
  using op_type = hash_op<Key, Value>;

  /// A table of at least `capacity` slots (whole buckets of 8, at least 2
  /// buckets), all empty. Keys must differ from the empty key and the one
  /// below it (the tombstone); values from the empty value. Device memory:
  /// 8 bytes per slot, a lock word per bucket, and the bulk insert's
  /// overflow and leftover lists (each a 4-byte entry per insert_chunk() key,
  /// about a byte per slot).
  explicit bucketed_cuckoo_map(std::size_t capacity, graphkit::empty_key<Key> key_sentinel = {},
                               graphkit::empty_value<Value> value_sentinel = {}, cudaStream_t stream = nullptr);

  [[nodiscard]] std::size_t capacity() const noexcept { return slots_.size(); }
  [[nodiscard]] std::size_t bucket_count() const noexcept { return slots_.size() / kCuckooBucketSlots; }
  /// A ref with the operations asked for (all by default); it counts no moves.
  template <hash_ops Ops = hash_ops::all>
  [[nodiscard]] ref_with<Ops> ref() noexcept {
    return {slots_.data(), static_cast<std::uint32_t>(bucket_count()), locks_.data(), empty_key_, empty_value_,
            nullptr};
  }
  /// A const map hands out read-only refs.
  template <hash_ops Ops = hash_ops::find>
  requires(!writes_table(Ops)) [[nodiscard]] ref_with<Ops> ref() const noexcept {
    return {slots_.data(), static_cast<std::uint32_t>(bucket_count()), locks_.data(), empty_key_, empty_value_,
            nullptr};
  }
  /// Keys per launch pair of a bulk insert (the first pass, then the second over what it deferred).
  [[nodiscard]] std::size_t insert_chunk() const noexcept { return insert_chunk_; }
  [[nodiscard]] Key empty_key_sentinel() const noexcept { return empty_key_; }
  [[nodiscard]] Value empty_value_sentinel() const noexcept { return empty_value_; }

  /// Inserts or overwrites; `counts` receives this call's inserted / failed /
  /// sentinel / displacement counts.
  void insert_async(const Key* d_keys, const Value* d_values, std::size_t n, hash_counts& counts,
                    cudaStream_t stream = nullptr);
  /// Returns how many keys were added; throws resource_error if any insert
  /// found no room, graphkit::error if a key or value is a sentinel.
  std::uint64_t insert(const Key* d_keys, const Value* d_values, std::size_t n, cudaStream_t stream = nullptr);
  /// How find_async and contains_async read buckets (kCuckooFindRead by
  /// default; the bench times both). Kernels with writers read whole buckets.
  void set_find_read(cuckoo_find_read read) noexcept { find_read_ = read; }
  [[nodiscard]] cuckoo_find_read find_read() const noexcept { return find_read_; }
  /// How erase_async reads buckets (kCuckooEraseRead by default: halves; its
  /// kernel runs alone). apply_async's erases read whole buckets.
  void set_erase_read(cuckoo_find_read read) noexcept { erase_read_ = read; }
  [[nodiscard]] cuckoo_find_read erase_read() const noexcept { return erase_read_; }
  /// d_values_out[i] = the value of d_keys[i], or the empty-value sentinel.
  void find_async(const Key* d_keys, std::size_t n, Value* d_values_out, cudaStream_t stream = nullptr) const;
  void contains_async(const Key* d_keys, std::size_t n, std::uint8_t* d_found, cudaStream_t stream = nullptr) const;
  /// `counts` receives how many live values were removed.
  void erase_async(const Key* d_keys, std::size_t n, hash_counts& counts, cudaStream_t stream = nullptr);
  /// Returns how many live values were removed.
  std::uint64_t erase(const Key* d_keys, std::size_t n, cudaStream_t stream = nullptr);
  /// A mixed batch, in no fixed order (semantics in the header comment): in
  /// the bulk insert's passes over the whole batch (the header's "Mixed
  /// batches in two passes"). d_results[i]: a find's value (or the empty
  /// value), an insert's hash_outcome, an erase's kHashErased / kHashAbsent.
  /// Keeps lists of 8 bytes per operation, grown (cudaMalloc, which
  /// synchronises) by the first batch larger than any before.
  void apply_async(const op_type* d_ops, std::size_t n, Value* d_results, hash_counts& counts,
                   cudaStream_t stream = nullptr);

  /// Live entries.
  [[nodiscard]] std::uint64_t size(cudaStream_t stream = nullptr) const;
  /// Live entries that sit in their second bucket.
  [[nodiscard]] std::uint64_t second_bucket_size(cudaStream_t stream = nullptr) const;
  /// Copies the live entries out (d_keys_out and d_values_out hold size()); returns how many.
  std::uint64_t retrieve_all(Key* d_keys_out, Value* d_values_out, cudaStream_t stream = nullptr) const;
  /// Empties every slot (dead keys too).
  void clear(cudaStream_t stream = nullptr);

 private:
  /// Clears the give-up flag (locks_[bucket_count()]) for the next launch.
  void reset_give_up(cudaStream_t stream) {
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(locks_.data() + bucket_count(), 0, sizeof(unsigned), stream));
  }
  /// Where a first pass queues its deferred inserts and the second its
  /// leftovers: an overflow list of `chunk` elements' worth (a segment per
  /// warp of at most `warps` warps, and each segment's count) and a leftover
  /// list of `chunk` entries and their count (0 between chunks).
  struct pass_lists {
    std::size_t chunk;
    unsigned warps;
    std::uint32_t* overflow;
    unsigned* counts;
    std::uint32_t* leftovers;
    std::uint32_t* leftover_count;
  };
  /// The bulk insert's passes over `in` (cuckoo_detail::insert_input or
  /// mixed_input), a chunk of `lists.chunk` elements at a time: claim_kernel,
  /// settle_fast_kernel over what it deferred, settle_kernel over what that
  /// left, settle_alone_kernel over the rest.
  template <class Input>
  void run_passes(Input in, std::size_t n, const pass_lists& lists, hash_counts& counts, cudaStream_t stream);
  /// The per-chunk lists (insert_chunk_ elements, allocated with the table).
  [[nodiscard]] pass_lists chunk_lists() noexcept {
    return {insert_chunk_,           overflow_warps_,   overflow_.data(),
            overflow_counts_.data(), leftovers_.data(), leftovers_.data() + insert_chunk_};
  }
  /// Lists for one chunk of n elements (apply_async: the whole batch, at
  /// most kCuckooInsertChunkMax), grown to n when smaller.
  pass_lists batch_lists(std::size_t n, cudaStream_t stream);

  Key empty_key_;
  Value empty_value_;
  cuckoo_find_read find_read_ = kCuckooFindRead;
  cuckoo_find_read erase_read_ = kCuckooEraseRead;
  device_buffer<slot> slots_;
  device_buffer<unsigned> locks_;
  /// The bulk insert's chunk, and its overflow list (cuckoo_detail::overflow_list):
  /// deferred inputs' indices in a segment per warp of the first pass, and each segment's count.
  std::size_t insert_chunk_ = 0;
  unsigned overflow_warps_ = 0;
  device_buffer<std::uint32_t> overflow_;
  device_buffer<unsigned> overflow_counts_;
  /// The inserts the second pass leaves to the last (cuckoo_detail::leftover_list):
  /// insert_chunk_ entries, then their count.
  device_buffer<std::uint32_t> leftovers_;
  /// apply_async's lists (batch_lists), for batch_chunk_ elements (0 until
  /// needed): the leftover count, the leftovers, then the overflow list's entries.
  std::size_t batch_chunk_ = 0;
  device_buffer<std::uint32_t> batch_lists_;
  /// The synchronous calls' own counts (they read them before returning).
  hash_counts sync_counts_;
  mutable device_buffer<unsigned long long> scratch_;
};

}  // namespace graphkit

#include "primitives/hash/detail/bucketed_cuckoo_impl.cuh"
