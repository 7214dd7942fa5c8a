//===- RemoteCacheTest.cpp - The shared compile cache and its HTTP client -===//
//
// The ActionResult encoding byte for byte and every refusal of its decoder;
// URL parsing and its errors; the HTTP response parser on canned bytes; the
// client and the remote cache against a small HTTP server in this process
// (a hit, a miss, an evicted blob, a blob longer or other than its entry
// says, server errors, a refused connection, a server that never answers).
// test/tools/neuronc/remote-cache.test runs the same against a real nginx.
//
//===----------------------------------------------------------------------===//

#include "NeffSamples.h"

#include "neuronc/Pipelines/RemoteCache.h"
#include "neuronc/Support/HttpClient.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace neuronc;

namespace {

template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "(no error)";
  return llvm::toString(value.takeError());
}

CacheDigest sampleDigest() {
  return {"a629433ddc1c6224c49a7247594a556379c0330fc98786c56f75f82450066ef5", 10552};
}

//===--- A protobuf writer for hand-made entries --------------------------===//

std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return out + static_cast<char>(v);
}
std::string tag(uint32_t field, unsigned type) { return varint((uint64_t(field) << 3) | type); }
std::string bytesField(uint32_t field, const std::string &bytes) {
  return tag(field, 2) + varint(bytes.size()) + bytes;
}
std::string varintField(uint32_t field, uint64_t v) { return tag(field, 0) + varint(v); }
std::string digestMsg(const std::string &hash, int64_t size) {
  return bytesField(1, hash) + varintField(2, static_cast<uint64_t>(size));
}
std::string outputFile(const std::string &path, const std::string &digest) {
  return bytesField(2, bytesField(1, path) + bytesField(2, digest));
}

//===--- A small HTTP server in this process ------------------------------===//

/// A request as the server received it.
struct Received {
  std::string method, target, head, body;
};

/// Serves 127.0.0.1:<port> on one thread, one connection at a time: reads a
/// request (head, then a Content-Length body), answers with the raw bytes
/// the handler returns and closes the connection.
class TestServer {
public:
  using Handler = std::function<std::string(const Received &)>;

  explicit TestServer(Handler handler) : handler(std::move(handler)) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(fd, 16), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
    port = ntohs(addr.sin_port);
    thread = std::thread([this] { serve(); });
  }
  ~TestServer() {
    stop = true;
    thread.join();
    ::close(fd);
  }

  HttpUrl url(const std::string &path = "/cache") const {
    return cantFail(HttpUrl::parse("http://127.0.0.1:" + std::to_string(port) + path));
  }
  std::vector<Received> requests() {
    std::lock_guard<std::mutex> lock(mutex);
    return received;
  }

  uint16_t port = 0;

private:
  void serve() {
    while (!stop) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0)
        continue;
      int c = ::accept(fd, nullptr, nullptr);
      if (c < 0)
        continue;
      std::string in;
      char buf[4096];
      size_t headEnd = std::string::npos, length = 0;
      while (true) {
        if (headEnd != std::string::npos && in.size() >= headEnd + 4 + length)
          break;
        ssize_t n = ::recv(c, buf, sizeof(buf), 0);
        if (n <= 0)
          break;
        in.append(buf, n);
        if (headEnd == std::string::npos && (headEnd = in.find("\r\n\r\n")) != std::string::npos) {
          size_t at = llvm::StringRef(in).find_insensitive("content-length:");
          if (at != std::string::npos && at < headEnd)
            length = std::stoul(in.substr(at + 15));
        }
      }
      Received r;
      r.head = in.substr(0, headEnd);
      r.body = headEnd == std::string::npos ? "" : in.substr(headEnd + 4);
      llvm::StringRef line = llvm::StringRef(r.head).split("\r\n").first;
      r.method = line.split(' ').first.str();
      r.target = line.split(' ').second.split(' ').first.str();
      std::string out = handler(r);
      {
        std::lock_guard<std::mutex> lock(mutex);
        received.push_back(r);
      }
      ::send(c, out.data(), out.size(), MSG_NOSIGNAL);
      ::close(c);
    }
  }

  Handler handler;
  int fd = -1;
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::vector<Received> received;
  std::thread thread;
};

std::string response(unsigned status, const std::string &reason, const std::string &body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

/// A WebDAV-like store: PUT keeps the body, GET returns it or 404.
struct Store {
  std::mutex mutex;
  std::map<std::string, std::string> files;

  std::string operator()(const Received &r) {
    std::lock_guard<std::mutex> lock(mutex);
    if (r.method == "PUT") {
      files[r.target] = r.body;
      return response(201, "Created", "");
    }
    auto it = files.find(r.target);
    if (it == files.end())
      return response(404, "Not Found", "<html>404</html>");
    return response(200, "OK", it->second);
  }
};

/// A port nothing listens on (bound, then closed).
uint16_t closedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::vector<uint8_t> sampleExecutable() { return neff::writeNeff(neuronc::testing::sample()); }

} // namespace

//===----------------------------------------------------------------------===//
// The ActionResult
//===----------------------------------------------------------------------===//

TEST(ActionResult, EncodesTheWireFormatByteForByte) {
  // What protoc --decode_raw reads as {2 {1: "executable.neff" 2 {1: <hash> 2: 10552}}}.
  CacheDigest d = sampleDigest();
  std::string want = outputFile("executable.neff", digestMsg(d.hash, d.sizeBytes));
  EXPECT_EQ(encodeActionResult(d), want);
  // Field 2, 88 bytes; field 1, 15 bytes, "ex...".
  EXPECT_EQ(llvm::toHex(encodeActionResult(d)).substr(0, 12), "12580A0F6578");
  EXPECT_EQ(encodeActionResult(d).size(), 90u);
}

TEST(ActionResult, RoundTrips) {
  for (CacheDigest d : {sampleDigest(), CacheDigest{std::string(64, '0'), 0},
                        CacheDigest{std::string(64, 'f'), int64_t(1) << 40}}) {
    auto back = decodeActionResult(encodeActionResult(d));
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(*back, d);
  }
  std::vector<uint8_t> exe = sampleExecutable();
  CacheDigest d = CacheDigest::of(exe);
  EXPECT_EQ(d.sizeBytes, static_cast<int64_t>(exe.size()));
  EXPECT_EQ(cantFail(decodeActionResult(encodeActionResult(d))), d);
}

TEST(ActionResult, AcceptsWhatOtherEncodersWrite) {
  CacheDigest d = sampleDigest();
  // An explicit exit_code 0, is_executable, stdout bytes, a fixed32 and a
  // fixed64 field it does not know, and the fields in another order.
  std::string file = bytesField(2, digestMsg(d.hash, d.sizeBytes)) + varintField(4, 1) +
                     bytesField(1, "executable.neff");
  std::string bytes = varintField(4, 0) + bytesField(5, "log") + bytesField(2, file) +
                      tag(99, 5) + "abcd" + tag(98, 1) + "abcdefgh";
  EXPECT_EQ(cantFail(decodeActionResult(bytes)), d);
  // A digest split in two messages merges (protobuf semantics).
  std::string split = bytesField(2, bytesField(1, "executable.neff") +
                                        bytesField(2, bytesField(1, d.hash)) +
                                        bytesField(2, varintField(2, d.sizeBytes)));
  EXPECT_EQ(cantFail(decodeActionResult(split)), d);
}

TEST(ActionResult, RefusesMalformedEntries) {
  CacheDigest d = sampleDigest();
  std::string good = encodeActionResult(d);
  // Every truncation is refused.
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_NE(errorOf(decodeActionResult(good.substr(0, n))), "(no error)") << n;

  EXPECT_EQ(errorOf(decodeActionResult("")),
            "ActionResult: expected one output file 'executable.neff', found none");
  EXPECT_EQ(errorOf(decodeActionResult(good.substr(0, 5))),
            "ActionResult: field 2 claims 88 bytes but 3 remain (at byte 2)");
  EXPECT_EQ(errorOf(decodeActionResult("\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f")),
            "ActionResult: a varint overflows 64 bits (at byte 11)");
  EXPECT_EQ(errorOf(decodeActionResult("this is not an ActionResult\n")),
            "ActionResult: field 14 has wire type 4 (groups and types 6, 7 are not accepted) "
            "(at byte 1)");
  EXPECT_EQ(errorOf(decodeActionResult(tag(0, 0) + varint(1))),
            "ActionResult: field number 0 is out of range (at byte 1)");
  EXPECT_EQ(errorOf(decodeActionResult(varintField(2, 7))),
            "ActionResult: field 2 has wire type 0, expected 2 (at byte 2)");
  EXPECT_EQ(errorOf(decodeActionResult(good + varintField(4, 1))),
            "ActionResult: exit code 1, not that of a successful compile");
  EXPECT_EQ(errorOf(decodeActionResult(good + varintField(4, uint64_t(-2)))),
            "ActionResult: exit code -2, not that of a successful compile");
  EXPECT_EQ(errorOf(decodeActionResult(good + good)),
            "ActionResult: expected one output file 'executable.neff', found "
            "'executable.neff', 'executable.neff'");
  EXPECT_EQ(errorOf(decodeActionResult(outputFile("model.neff", digestMsg(d.hash, 1)))),
            "ActionResult: expected one output file 'executable.neff', found 'model.neff'");
  EXPECT_EQ(errorOf(decodeActionResult(bytesField(2, bytesField(1, "executable.neff")))),
            "ActionResult: the output file has no digest");
  std::string upper = llvm::StringRef(d.hash).upper();
  EXPECT_EQ(errorOf(decodeActionResult(outputFile("executable.neff", digestMsg(upper, 1)))),
            "ActionResult: the digest's hash '" + upper + "' is not 64 lowercase hex digits");
  EXPECT_EQ(errorOf(decodeActionResult(outputFile("executable.neff", digestMsg("abc", 1)))),
            "ActionResult: the digest's hash 'abc' is not 64 lowercase hex digits");
  EXPECT_EQ(errorOf(decodeActionResult(outputFile("executable.neff", digestMsg(d.hash, -1)))),
            "ActionResult: the digest's size -1 is negative");
  EXPECT_EQ(errorOf(decodeActionResult(outputFile("executable.neff",
                                                  bytesField(1, d.hash) + tag(2, 2) + "\x01x"))),
            "Digest: field 2 has wire type 2, expected 0 (at byte 69)");
}

TEST(ActionResult, KeysAreSha256Digests) {
  EXPECT_EQ(CacheDigest::sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(CacheDigest::sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(RemoteCache::actionKey("0084f0a6c3834528553bdcb0ad6a31f2"),
            CacheDigest::sha256Hex("0084f0a6c3834528553bdcb0ad6a31f2"));
}

//===----------------------------------------------------------------------===//
// URLs
//===----------------------------------------------------------------------===//

TEST(HttpUrl, ParsesHostPortAndPrefix) {
  HttpUrl u = cantFail(HttpUrl::parse("http://cache.example:9090/team/neuronc/"));
  EXPECT_EQ(u.host, "cache.example");
  EXPECT_EQ(u.port, 9090);
  EXPECT_EQ(u.path, "/team/neuronc");
  EXPECT_EQ(u.str(), "http://cache.example:9090/team/neuronc");
  u = cantFail(HttpUrl::parse("HTTP://10.0.0.7"));
  EXPECT_EQ(u.host, "10.0.0.7");
  EXPECT_EQ(u.port, 80);
  EXPECT_EQ(u.path, "");
  u = cantFail(HttpUrl::parse("http://[::1]:8080/c"));
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.authority(), "[::1]:8080");
  EXPECT_EQ(u.str(), "http://[::1]:8080/c");
}

TEST(HttpUrl, ErrorsSayWhatIsWrongAndWhatIsAccepted) {
  auto err = [](llvm::StringRef url) { return errorOf(HttpUrl::parse(url)); };
  EXPECT_EQ(err("https://c:9090"),
            "'https://c:9090': https is not supported, only plain http://; give "
            "http://host[:port][/prefix] (a server on a trusted network, or a local proxy that "
            "forwards to the https one)");
  EXPECT_EQ(err("grpc://c:9092"), "'grpc://c:9092': expected http://host[:port][/prefix]");
  EXPECT_EQ(err("c:9090"), "'c:9090': expected http://host[:port][/prefix]");
  EXPECT_EQ(err(""), "'': expected http://host[:port][/prefix]");
  EXPECT_EQ(err("http://"), "'http://': no host; expected http://host[:port][/prefix]");
  EXPECT_EQ(err("http:///x"), "'http:///x': no host; expected http://host[:port][/prefix]");
  EXPECT_EQ(err("http://:80/x"), "'http://:80/x': no host; expected http://host[:port][/prefix]");
  EXPECT_EQ(err("http://h:0"), "'http://h:0': port '0' is not a number from 1 to 65535");
  EXPECT_EQ(err("http://h:65536"), "'http://h:65536': port '65536' is not a number from 1 to 65535");
  EXPECT_EQ(err("http://h:+80"), "'http://h:+80': port '+80' is not a number from 1 to 65535");
  EXPECT_EQ(err("http://h:"), "'http://h:': empty port after ':'");
  EXPECT_EQ(err("http://u:p@h/x"), "'http://u:p@h/x': user names and passwords are not "
                                   "supported; give http://host[:port][/prefix]");
  EXPECT_EQ(err("http://h/x?y=1"), "'http://h/x?y=1': a query or fragment ('?', '#') is not "
                                   "supported; give http://host[:port][/prefix]");
  EXPECT_EQ(err("http://h/a b"), "'http://h/a b': a URL holds no spaces, control characters or "
                                 "non-ASCII bytes (percent-encode them)");
  EXPECT_EQ(err("http://h/a\"b"), "'http://h/a\"b': character '\"' is not allowed in the path");
  EXPECT_EQ(err("http://h!x/"), "'http://h!x/': 'h!x' is not a host name or address");
  EXPECT_EQ(err("http://[::1/"), "'http://[::1/': unterminated IPv6 address (no ']')");
  EXPECT_EQ(err("http://[::1]x/"), "'http://[::1]x/': expected ':port' after the IPv6 address");
}

//===----------------------------------------------------------------------===//
// The response parser
//===----------------------------------------------------------------------===//

TEST(HttpResponseParser, FramesBodies) {
  auto ok = [](llvm::StringRef bytes, uint64_t max = 1 << 20) {
    return cantFail(parseHttpResponse(bytes, max));
  };
  HttpResponse r = ok("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello, extra");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.reason, "OK");
  EXPECT_EQ(r.body, "hello");
  r = ok("HTTP/1.1 404 Not Found\r\ncontent-length:  3 \r\n\r\nnop");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.body, "nop");
  // Chunked, with an extension and a trailer; it overrides Content-Length.
  r = ok("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n"
         "4;x=y\r\nabcd\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n");
  EXPECT_EQ(r.body, "abcd0123456789");
  // Interim 100 Continue, then the response.
  r = ok("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(r.status, 201u);
  // 204 has no body whatever follows; no length: the body runs to the close.
  EXPECT_EQ(ok("HTTP/1.1 204 No Content\r\n\r\n").body, "");
  EXPECT_EQ(ok("HTTP/1.0 200 OK\r\n\r\nuntil close").body, "until close");
  EXPECT_EQ(ok("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n").reason, "");
}

TEST(HttpResponseParser, RefusesMalformedResponses) {
  auto err = [](llvm::StringRef bytes, uint64_t max = 1 << 20) {
    return errorOf(parseHttpResponse(bytes, max));
  };
  EXPECT_EQ(err(""), "the connection closed without a response");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"), "the response header is cut short");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel"),
            "the response body is cut short (3 of 5 bytes)");
  EXPECT_EQ(err("SSH-2.0-OpenSSH_9.2\r\n\r\n"),
            "malformed status line 'SSH-2.0-OpenSSH_9.2' (expected HTTP/1.x <code> <reason>)");
  EXPECT_EQ(err("HTTP/1.1 2x0 OK\r\n\r\n"),
            "malformed status line 'HTTP/1.1 2x0 OK' (expected HTTP/1.x <code> <reason>)");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), "malformed Content-Length '-1'");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
            "two different Content-Length headers");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nno colon\r\n\r\n"), "malformed header line 'no colon'");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"),
            "unsupported Transfer-Encoding 'gzip'");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            "malformed chunk size 'zz'");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcdXY0\r\n\r\n"),
            "a chunk does not end with CRLF");
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n"),
            "the chunked body is cut short");
  // A body longer than allowed is its own kind of error.
  EXPECT_EQ(err("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n123456789", 8),
            "the response body of 9 bytes is larger than the 8 bytes expected");
  llvm::Expected<HttpResponse> big = parseHttpResponse("HTTP/1.1 200 OK\r\n\r\n123456789", 8);
  ASSERT_FALSE(static_cast<bool>(big));
  EXPECT_TRUE(big.errorIsA<HttpBodyTooLargeError>());
  consumeError(big.takeError());
  // An incomplete head is not an error yet.
  auto head = parseHttpResponseHead("HTTP/1.1 200 OK\r\nContent-Le");
  ASSERT_TRUE(static_cast<bool>(head));
  EXPECT_FALSE(head->has_value());
  EXPECT_EQ(errorOf(parseHttpResponseHead(std::string(70000, 'x'))),
            "the response header is longer than 65536 bytes");
}

//===----------------------------------------------------------------------===//
// The client against a server
//===----------------------------------------------------------------------===//

TEST(HttpClient, GetsAndPuts) {
  TestServer server([](const Received &r) {
    return r.method == "GET" ? response(200, "OK", "blob") : response(204, "No Content", "");
  });
  HttpClient client(std::chrono::milliseconds(2000));
  HttpResponse got = cantFail(client.get(server.url(), "/cas/abc", 100));
  EXPECT_EQ(got.status, 200u);
  EXPECT_EQ(got.body, "blob");
  std::string body(300000, 'z'); // larger than one socket buffer
  body[123] = '\0';
  EXPECT_EQ(cantFail(client.put(server.url(), "/ac/def", body)).status, 204u);
  std::vector<Received> seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[0].target, "/cache/cas/abc");
  EXPECT_NE(seen[0].head.find("\r\nHost: 127.0.0.1:" + std::to_string(server.port)),
            std::string::npos);
  EXPECT_NE(seen[0].head.find("\r\nConnection: close"), std::string::npos);
  EXPECT_EQ(seen[1].method, "PUT");
  EXPECT_EQ(seen[1].target, "/cache/ac/def");
  EXPECT_NE(seen[1].head.find("\r\nContent-Length: 300000"), std::string::npos);
  EXPECT_EQ(seen[1].body, body);
  // A body over the caller's limit is refused as such.
  llvm::Expected<HttpResponse> big = client.get(server.url(), "/cas/abc", 3);
  ASSERT_FALSE(static_cast<bool>(big));
  EXPECT_TRUE(big.errorIsA<HttpBodyTooLargeError>());
  consumeError(big.takeError());
}

TEST(HttpClient, ConnectionRefusedAndSilentServers) {
  HttpClient client(std::chrono::milliseconds(200));
  uint16_t port = closedPort();
  HttpUrl closed = cantFail(HttpUrl::parse("http://127.0.0.1:" + std::to_string(port)));
  EXPECT_EQ(errorOf(client.get(closed, "/x", 10)),
            "cannot connect to 127.0.0.1:" + std::to_string(port) + ": Connection refused");

  // A server that accepts connections (the kernel does, from the backlog)
  // and never answers: the client gives up after its timeout.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
  std::string authority = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(errorOf(client.get(cantFail(HttpUrl::parse("http://" + authority)), "/x", 10)),
            authority + " sent nothing for 0.2 s");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, std::chrono::milliseconds(190));
  EXPECT_LT(took, std::chrono::milliseconds(3000));
  ::close(fd);

  // A server that answers garbage.
  TestServer garbage([](const Received &) { return std::string("garbage\r\n\r\n"); });
  EXPECT_EQ(errorOf(client.get(garbage.url(), "/x", 10)),
            "malformed response from 127.0.0.1:" + std::to_string(garbage.port) +
                ": malformed status line 'garbage' (expected HTTP/1.x <code> <reason>)");
}

//===----------------------------------------------------------------------===//
// The remote cache against a server
//===----------------------------------------------------------------------===//

TEST(RemoteCache, MissStoreHit) {
  Store store;
  TestServer server([&](const Received &r) { return store(r); });
  RemoteCache cache(server.url(), std::chrono::milliseconds(2000));
  RemoteCache::Lookup miss = cache.lookup("key1");
  EXPECT_FALSE(miss.bytes);
  EXPECT_EQ(miss.corrupt, "");
  EXPECT_EQ(miss.unavailable, "");

  std::vector<uint8_t> exe = sampleExecutable();
  ASSERT_FALSE(static_cast<bool>(cache.store("key1", exe)));
  CacheDigest d = CacheDigest::of(exe);
  std::vector<Received> puts = server.requests();
  ASSERT_EQ(puts.size(), 3u);
  // The blob first, then the entry naming it.
  EXPECT_EQ(puts[1].target, "/cache/cas/" + d.hash);
  EXPECT_EQ(puts[2].target, "/cache/ac/" + RemoteCache::actionKey("key1"));
  EXPECT_EQ(puts[2].body, encodeActionResult(d));

  RemoteCache::Lookup hit = cache.lookup("key1");
  ASSERT_TRUE(hit.bytes) << hit.corrupt << hit.unavailable;
  EXPECT_EQ(*hit.bytes, exe);
  EXPECT_EQ(cache.actionUrl("key1"), server.url().str() + "/ac/" + RemoteCache::actionKey("key1"));
}

TEST(RemoteCache, BadEntriesAreCorruptNotFatal) {
  Store store;
  TestServer server([&](const Received &r) { return store(r); });
  RemoteCache cache(server.url(), std::chrono::milliseconds(2000));
  std::vector<uint8_t> exe = sampleExecutable();
  ASSERT_FALSE(static_cast<bool>(cache.store("k", exe)));
  CacheDigest d = CacheDigest::of(exe);
  std::string ac = "/cache/ac/" + RemoteCache::actionKey("k");
  std::string cas = "/cache/cas/" + d.hash;
  std::string base = server.url().str();

  // The blob evicted: a miss.
  std::string blob = store.files[cas];
  store.files.erase(cas);
  RemoteCache::Lookup r = cache.lookup("k");
  EXPECT_FALSE(r.bytes);
  EXPECT_EQ(r.corrupt + r.unavailable, "");

  // A byte changed: the SHA-256 differs.
  store.files[cas] = blob;
  store.files[cas][100] ^= 1;
  r = cache.lookup("k");
  EXPECT_FALSE(r.bytes);
  std::string got = CacheDigest::of(llvm::arrayRefFromStringRef(store.files[cas])).hash;
  EXPECT_EQ(r.corrupt, base + "/cas/" + d.hash + ": the content's SHA-256 is " + got);

  // Longer or shorter than the entry says.
  store.files[cas] = blob + "x";
  r = cache.lookup("k");
  EXPECT_EQ(r.corrupt, base + "/cas/" + d.hash + ": the response body of " +
                           std::to_string(blob.size() + 1) + " bytes is larger than the " +
                           std::to_string(blob.size()) + " bytes expected");
  store.files[cas] = blob.substr(1);
  r = cache.lookup("k");
  EXPECT_EQ(r.corrupt, base + "/cas/" + d.hash + ": " + std::to_string(blob.size() - 1) +
                           " bytes, the entry says " + std::to_string(blob.size()));

  // A damaged executable under its own, correct digest: the executable's
  // checks refuse it.
  std::string damaged = blob;
  damaged[damaged.size() / 2] ^= 0x40;
  CacheDigest dd = CacheDigest::of(llvm::arrayRefFromStringRef(damaged));
  store.files["/cache/cas/" + dd.hash] = damaged;
  store.files[ac] = encodeActionResult(dd);
  r = cache.lookup("k");
  EXPECT_FALSE(r.bytes);
  EXPECT_NE(r.corrupt.find(base + "/cas/" + dd.hash + ": "), std::string::npos) << r.corrupt;
  EXPECT_NE(r.corrupt.find("checksum mismatch"), std::string::npos) << r.corrupt;

  // A malformed entry.
  store.files[ac] = "\x08";
  r = cache.lookup("k");
  EXPECT_EQ(r.corrupt, base + "/ac/" + RemoteCache::actionKey("k") +
                           ": ActionResult: a varint is cut short (at byte 1)");
  EXPECT_EQ(r.unavailable, "");

  // Storing again repairs it.
  ASSERT_FALSE(static_cast<bool>(cache.store("k", exe)));
  r = cache.lookup("k");
  ASSERT_TRUE(r.bytes);
  EXPECT_EQ(*r.bytes, exe);
}

TEST(RemoteCache, ServerErrorsMakeItUnavailable) {
  TestServer server([](const Received &) { return response(503, "Service Unavailable", "busy"); });
  RemoteCache cache(server.url(), std::chrono::milliseconds(2000));
  RemoteCache::Lookup r = cache.lookup("k");
  EXPECT_FALSE(r.bytes);
  EXPECT_EQ(r.corrupt, "");
  EXPECT_EQ(r.unavailable,
            "GET " + cache.actionUrl("k") + ": HTTP 503 Service Unavailable");
  std::vector<uint8_t> exe = sampleExecutable();
  EXPECT_EQ(llvm::toString(cache.store("k", exe)),
            "PUT " + server.url().str() + "/cas/" + CacheDigest::of(exe).hash +
                ": HTTP 503 Service Unavailable");

  uint16_t port = closedPort();
  RemoteCache down(cantFail(HttpUrl::parse("http://127.0.0.1:" + std::to_string(port) + "/c")),
                   std::chrono::milliseconds(200));
  r = down.lookup("k");
  EXPECT_EQ(r.unavailable, "GET " + down.actionUrl("k") + ": cannot connect to 127.0.0.1:" +
                               std::to_string(port) + ": Connection refused");
}
