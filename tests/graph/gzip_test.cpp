// gzip input: one member, several concatenated, BGZF (decompressed in
// parallel), and every way a gzip file can be broken. The model is the
// original bytes; the files are written with zlib (tests/common/gzip_writer.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include "graph/io/detail/text_file.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gzip_writer.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

using detail::read_text_file;
using test::bgzf_file;
using test::bgzf_member;
using test::gzip_member;
using test::temp_path;

void write_file(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// What read_text_file gives for `bytes` written to a scratch file.
std::string read_back(const std::string& bytes, unsigned threads = 0, const std::string& suffix = ".el.gz") {
  const std::string path = temp_path(suffix);
  write_file(path, bytes);
  return std::string(read_text_file(path, threads).view());
}

/// The message of the input_error that reading `bytes` throws; it must name the file.
std::string read_error(const std::string& bytes, const std::string& suffix = ".el.gz") {
  const std::string path = temp_path(suffix);
  write_file(path, bytes);
  try {
    (void)read_text_file(path);
  } catch (const input_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    return message;
  }
  return "(no error)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Edge-list-like text of about `bytes` bytes: numbers, blanks, comments,
/// and now and then any byte at all (the reader must not care what it holds).
std::string random_text(std::mt19937_64& rng, std::size_t bytes) {
  std::string text;
  text.reserve(bytes + 64);
  while (text.size() < bytes) {
    switch (rng() % 16) {
      case 0: text += "# comment " + std::to_string(rng()) + "\n"; break;
      case 1: text += static_cast<char>(rng()); break;
      default: text += std::to_string(rng() % 5000000) + " " + std::to_string(rng() % 5000000) + "\n";
    }
  }
  return text;
}

/// `text` cut at random points into members written by zlib at random levels.
std::string random_members(const std::string& text, std::mt19937_64& rng, std::size_t pieces) {
  std::vector<std::size_t> cuts = {0, text.size()};
  for (std::size_t i = 1; i < pieces; ++i) cuts.push_back(rng() % (text.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::string out;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    out += gzip_member(std::string_view(text).substr(cuts[i], cuts[i + 1] - cuts[i]), 1 + static_cast<int>(rng() % 9));
  return out;
}

/// `text` as BGZF members of random sizes.
std::string random_bgzf(const std::string& text, std::mt19937_64& rng) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t block = std::min<std::size_t>(1 + rng() % 0xff00, text.size() - at);
    out += bgzf_member(std::string_view(text).substr(at, block));
    at += block;
  }
  return out + bgzf_member("");
}

TEST(Gzip, ConcatenatedMembersReadAsTheConcatenation) {
  // As `gzip -c a > f; gzip -c b >> f` writes; an empty member in between.
  const std::string parts[] = {"0 1\n1 2\n", "", "2 0\n"};
  const std::string file = gzip_member(parts[0]) + gzip_member(parts[1]) + gzip_member(parts[2], 9);
  EXPECT_EQ(read_back(file), "0 1\n1 2\n2 0\n");
  const std::string path = temp_path(".el.gz");
  write_file(path, file);
  const loaded_graph loaded = load_graph(path);
  EXPECT_EQ(loaded.graph.num_vertices, 3u);
  EXPECT_EQ(loaded.graph.num_edges(), 3u);
}

TEST(Gzip, LastMemberSmallerThanTheRest) {
  // The trailer's ISIZE is only the last member's: the first must outgrow it.
  std::mt19937_64 rng(7);
  const std::string big = random_text(rng, 3 << 20);
  EXPECT_EQ(read_back(gzip_member(big) + gzip_member("1 2\n")), big + "1 2\n");
}

TEST(Gzip, BgzfFileReadsAsThePlainFile) {
  for (const char* name : {"rome99.gr", "bcsstk13.mtx", "facebook_combined.txt"}) {
    SCOPED_TRACE(name);
    const std::string plain_path = test::dataset(name);
    const std::string plain = read_file(plain_path);
    ASSERT_GT(plain.size(), 0xff00u);  // several members
    const std::string gz_path = temp_path(std::string("_") + name + ".gz");
    write_file(gz_path, bgzf_file(plain));
    for (const unsigned threads : {1u, 2u, 5u, 0u})
      EXPECT_EQ(read_text_file(gz_path, threads).view(), plain) << threads;
    const loaded_graph from_plain = load_graph(plain_path), from_gzip = load_graph(gz_path);
    EXPECT_EQ(from_gzip.graph.num_vertices, from_plain.graph.num_vertices);
    EXPECT_EQ(from_gzip.graph.src, from_plain.graph.src);
    EXPECT_EQ(from_gzip.graph.dst, from_plain.graph.dst);
    EXPECT_EQ(from_gzip.graph.weights, from_plain.graph.weights);
  }
}

TEST(Gzip, BgzfAndPlainMembersMixed) {
  // BGZF members are found by their headers up to the first plain member;
  // from there every member, BGZF or not, is read in order.
  const std::string a(70000, 'a'), b = "plain member\n", c(100000, 'c');
  EXPECT_EQ(read_back(bgzf_file(a) + gzip_member(b) + bgzf_file(c)), a + b + c);
  EXPECT_EQ(read_back(gzip_member(b) + bgzf_file(a)), b + a);
}

TEST(Gzip, RandomTextAsOneMemberAndAsManyMembers) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string text = random_text(rng, (4 << 20) + rng() % (4 << 20));
  const std::string single = gzip_member(text, 1 + static_cast<int>(rng() % 9));
  const std::string members = random_members(text, rng, 2 + rng() % 40);
  const std::string bgzf = random_bgzf(text, rng);
  for (const unsigned threads : {1u, 2u, 3u, 8u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    EXPECT_TRUE(read_back(single, threads) == text) << "one member";
    EXPECT_TRUE(read_back(members, threads) == text) << "zlib members";
    EXPECT_TRUE(read_back(bgzf, threads) == text) << "BGZF members";
  }
}

TEST(Gzip, GzipThroughAPipe) {
  // A pipe has no size: its bytes are gathered first, then decompressed.
  const std::string path = temp_path(".fifo");
  ::unlink(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::string text = "0 1\n1 2\n2 0\n";
  std::thread writer([&] { write_file(path, gzip_member(text) + bgzf_file(text)); });
  const std::string got(read_text_file(path).view());
  writer.join();
  EXPECT_EQ(got, text + text);
  ::unlink(path.c_str());
}

TEST(Gzip, TruncatedFilesNameTheFile) {
  const std::string text = read_file(test::dataset("rome99.gr"));
  const std::string single = gzip_member(text), bgzf = bgzf_file(text);
  for (const std::string* file : {&single, &bgzf}) {
    const bool is_bgzf = file == &bgzf;
    SCOPED_TRACE(is_bgzf ? "BGZF" : "one member");
    // Within the fixed header, within the BGZF extra field (its length, its
    // body), within the data, one byte short of the end.
    for (const std::size_t keep :
         {std::size_t{2}, std::size_t{7}, std::size_t{11}, std::size_t{14}, file->size() / 2, file->size() - 1}) {
      SCOPED_TRACE("kept " + std::to_string(keep) + " bytes");
      const std::string message = read_error(file->substr(0, keep));
      EXPECT_TRUE(contains(message, "truncated")) << message;
    }
  }
  EXPECT_TRUE(contains(read_error(single.substr(0, 5)), "the member header at byte 0 is cut short"));
  // BGZF cut in a member: the members before it are read, it is named.
  const std::size_t block = 0xff00, cut_member = text.size() / block / 2;
  std::size_t cut_at = 0;
  for (std::size_t i = 0; i < cut_member; ++i)
    cut_at += bgzf_member(std::string_view(text).substr(i * block, block)).size();
  const std::string message = read_error(bgzf.substr(0, cut_at + 100));
  EXPECT_TRUE(
      contains(message, "corrupt or truncated: the member at byte " + std::to_string(cut_at) + " does not decompress"))
      << message;
  // A second member cut short names where it starts.
  const std::string two = gzip_member("0 1\n") + gzip_member(text);
  EXPECT_TRUE(contains(read_error(two.substr(0, two.size() - 3)),
                       "member at byte " + std::to_string(gzip_member("0 1\n").size())));
}

TEST(Gzip, CorruptMembersNameTheFileAndTheMember) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string text = random_text(rng, 300000);
  std::string single = gzip_member(text);
  single[single.size() - 6] ^= 0x55;  // the CRC-32
  EXPECT_TRUE(contains(read_error(single), "corrupt or truncated: the member at byte 0 does not decompress"));
  std::string isize = gzip_member(text);
  isize[isize.size() - 1] ^= 0x01;  // ISIZE
  EXPECT_TRUE(contains(read_error(isize), "corrupt or truncated: the member at byte 0 does not decompress"));

  // A BGZF member in the middle: data flipped, named by its offset.
  const std::string first = bgzf_member(std::string_view(text).substr(0, 60000));
  std::string second = bgzf_member(std::string_view(text).substr(60000, 60000));
  const std::string third = bgzf_file(std::string_view(text).substr(120000));
  second[40] ^= 0xff;
  const std::string message = read_error(first + second + third);
  EXPECT_TRUE(contains(message, "the member at byte " + std::to_string(first.size()) + " does not decompress"))
      << message;
}

/// `member` with the length in its 'BC' subfield set to `length`.
std::string with_bc_length(std::string member, std::size_t length) {
  member[16] = static_cast<char>((length - 1) & 0xff);
  member[17] = static_cast<char>((length - 1) >> 8);
  return member;
}

TEST(Gzip, BgzfLengthsThatLieChangeNothing) {
  // The 'BC' lengths only make the work parallel: where one is wrong and the
  // gzip stream intact, the file reads as gzip -d reads it.
  const std::string a(70000, 'a'), b(50000, 'b'), c(30000, 'c');
  const std::string ma = bgzf_member(a), mb = bgzf_member(b), mc = bgzf_member(c);
  // Lands inside the next member (not believed), past the end (not
  // believed), on the member after next (believed, fails, read again in order).
  for (const std::size_t length :
       {ma.size() - 1, ma.size() + 1, ma.size() + mb.size() + mc.size() + 1, ma.size() + mb.size()}) {
    SCOPED_TRACE(length);
    for (const unsigned threads : {1u, 3u})
      EXPECT_EQ(read_back(with_bc_length(ma, length) + mb + mc, threads), a + b + c);
  }
  // An ISIZE too large to be true is not believed either.
  std::string huge = mb;
  huge[huge.size() - 1] = '\x7f';
  EXPECT_TRUE(
      contains(read_error(ma + huge + mc), "the member at byte " + std::to_string(ma.size()) + " does not decompress"));
}

TEST(Gzip, TrailingGarbageIsRefused) {
  const std::string member = gzip_member("0 1\n");
  const std::string at = "at byte " + std::to_string(member.size()) + " after the last member";
  for (const std::string& garbage :
       {std::string("x"), std::string("hello\n"), std::string(512, '\0'), std::string("\x1f")}) {
    const std::string message = read_error(member + garbage);
    EXPECT_TRUE(contains(message, "trailing garbage: " + std::to_string(garbage.size()) + " bytes " + at)) << message;
  }
  // After BGZF members, before anything is decompressed.
  const std::string bgzf = bgzf_file("0 1\n");
  EXPECT_TRUE(contains(read_error(bgzf + "junk"), "trailing garbage: 4 bytes at byte " + std::to_string(bgzf.size())));
}

TEST(Gzip, BadHeadersAreRefused) {
  const std::string member = gzip_member("0 1\n");
  std::string method = member;
  method[2] = 7;
  EXPECT_TRUE(contains(read_error(method), "bad member header at byte 0 (compression method 7, flags 0)"));
  std::string flags = member;
  flags[3] = '\x20';
  EXPECT_TRUE(contains(read_error(member + flags), "bad member header at byte " + std::to_string(member.size())));
  // FEXTRA promising more bytes than the file has.
  std::string extra = bgzf_member("0 1\n").substr(0, 12);
  extra[10] = 100;
  EXPECT_TRUE(contains(read_error(extra + "BC"), "cut short"));
}

TEST(Gzip, ExtraFieldsThatAreNotBgzfAreIgnored) {
  // Subfields other than a well-formed 'BC' leave a member to be read in
  // order: another subfield, a subfield overrunning XLEN, a 'BC' length
  // too short to be a member.
  const std::string text = "0 1\n1 2\n";
  const std::string bgzf = bgzf_member(text);
  std::string other = bgzf, overrun = bgzf, tiny = bgzf;
  other[12] = 'X';
  overrun[14] = 9;
  tiny[16] = 3, tiny[17] = 0;
  for (const std::string* member : {&other, &overrun, &tiny}) EXPECT_EQ(read_back(*member + bgzf), text + text);
}

TEST(Gzip, EmptyFiles) {
  // gzip refuses an empty .gz; an empty member is fine; an empty plain file is empty text.
  EXPECT_TRUE(contains(read_error(""), "empty file"));
  EXPECT_EQ(read_back(gzip_member("")), "");
  EXPECT_EQ(read_back(bgzf_member("")), "");
  EXPECT_EQ(read_back("", 0, ".el"), "");
}

}  // namespace
}  // namespace graphkit
