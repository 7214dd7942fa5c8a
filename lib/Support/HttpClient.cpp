//===- HttpClient.cpp - A small HTTP/1.1 client over POSIX sockets --------===//

#include "neuronc/Support/HttpClient.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

using namespace neuronc;

static llvm::Error httpError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

//===----------------------------------------------------------------------===//
// URLs
//===----------------------------------------------------------------------===//

static constexpr llvm::StringLiteral kUrlForm = "http://host[:port][/prefix]";

/// Characters a path may hold as they are (RFC 3986 pchar, '/' and '%').
static bool isPathChar(char c) {
  return llvm::isAlnum(c) || llvm::StringRef("-._~!$&'()*+,;=:@/%").contains(c);
}

llvm::Expected<HttpUrl> HttpUrl::parse(llvm::StringRef url) {
  auto bad = [&](const llvm::Twine &why) { return httpError("'" + url + "': " + why); };
  for (char c : url)
    if (static_cast<unsigned char>(c) <= ' ' || static_cast<unsigned char>(c) >= 0x7f)
      return bad("a URL holds no spaces, control characters or non-ASCII bytes "
                 "(percent-encode them)");
  llvm::StringRef rest = url;
  if (rest.starts_with_insensitive("https://"))
    return bad("https is not supported, only plain http://; give " + kUrlForm +
               " (a server on a trusted network, or a local proxy that forwards to the "
               "https one)");
  if (!rest.consume_front_insensitive("http://"))
    return bad("expected " + kUrlForm);
  size_t slash = rest.find('/');
  llvm::StringRef authority = rest.substr(0, slash);
  llvm::StringRef path = slash == llvm::StringRef::npos ? "" : rest.substr(slash);
  if (authority.contains('@'))
    return bad("user names and passwords are not supported; give " + kUrlForm);
  if (path.find_first_of("?#") != llvm::StringRef::npos)
    return bad("a query or fragment ('?', '#') is not supported; give " + kUrlForm);

  HttpUrl out;
  llvm::StringRef host = authority, port;
  if (authority.starts_with("[")) {
    size_t close = authority.find(']');
    if (close == llvm::StringRef::npos)
      return bad("unterminated IPv6 address (no ']')");
    host = authority.slice(1, close);
    if (host.empty() || host.find_first_not_of("0123456789abcdefABCDEF:.") != llvm::StringRef::npos)
      return bad("'" + host + "' is not an IPv6 address");
    llvm::StringRef after = authority.substr(close + 1);
    if (!after.empty()) {
      if (!after.consume_front(":"))
        return bad("expected ':port' after the IPv6 address");
      if (after.empty())
        return bad("empty port after ':'");
      port = after;
    }
  } else {
    size_t colon = authority.find(':');
    if (colon != llvm::StringRef::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      if (port.empty())
        return bad("empty port after ':'");
    }
    for (char c : host)
      if (!llvm::isAlnum(c) && c != '-' && c != '.' && c != '_')
        return bad("'" + host + "' is not a host name or address");
  }
  if (host.empty())
    return bad("no host; expected " + kUrlForm);
  out.host = host.str();
  if (!port.empty()) {
    unsigned p = 0;
    if (port.getAsInteger(10, p) || p == 0 || p > 65535 || !llvm::all_of(port, llvm::isDigit))
      return bad("port '" + port + "' is not a number from 1 to 65535");
    out.port = static_cast<uint16_t>(p);
  }
  for (char c : path)
    if (!isPathChar(c))
      return bad(llvm::Twine("character '") + llvm::Twine(c) + "' is not allowed in the path");
  out.path = path.rtrim('/').str();
  return out;
}

std::string HttpUrl::authority() const {
  bool v6 = llvm::StringRef(host).contains(':');
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string HttpUrl::str() const { return "http://" + authority() + path; }

//===----------------------------------------------------------------------===//
// Responses
//===----------------------------------------------------------------------===//

char HttpBodyTooLargeError::ID = 0;

void HttpBodyTooLargeError::log(llvm::raw_ostream &os) const {
  os << "the response body";
  if (announced)
    os << " of " << *announced << " bytes";
  os << " is larger than the " << maxBody << " bytes expected";
}

/// The largest header section accepted.
static constexpr size_t kMaxHeadBytes = 64 * 1024;

llvm::Expected<std::optional<HttpResponseHead>>
neuronc::parseHttpResponseHead(llvm::StringRef bytes) {
  size_t start = 0;
  while (true) {
    size_t end = bytes.find("\r\n\r\n", start);
    if (end == llvm::StringRef::npos) {
      if (bytes.size() - start > kMaxHeadBytes)
        return httpError("the response header is longer than " +
                         llvm::Twine(kMaxHeadBytes) + " bytes");
      return std::nullopt;
    }
    llvm::StringRef head = bytes.slice(start, end);
    auto [statusLine, fields] = head.split("\r\n");
    // HTTP/1.x SP 3DIGIT [SP reason]
    llvm::StringRef version = statusLine.take_front(9);
    if (!(version == "HTTP/1.1 " || version == "HTTP/1.0 "))
      return httpError("malformed status line '" + statusLine.take_front(80) +
                       "' (expected HTTP/1.x <code> <reason>)");
    llvm::StringRef code = statusLine.substr(9, 3);
    unsigned status = 0;
    if (code.size() != 3 || !llvm::all_of(code, llvm::isDigit) || code.getAsInteger(10, status) ||
        status < 100 || (statusLine.size() > 12 && statusLine[12] != ' '))
      return httpError("malformed status line '" + statusLine.take_front(80) +
                       "' (expected HTTP/1.x <code> <reason>)");
    HttpResponseHead out;
    out.status = status;
    out.reason = statusLine.substr(13).str();
    out.bodyOffset = end + 4;
    std::optional<uint64_t> length;
    bool chunked = false;
    llvm::SmallVector<llvm::StringRef> lines;
    if (!fields.empty())
      fields.split(lines, "\r\n");
    for (llvm::StringRef line : lines) {
      auto [name, value] = line.split(':');
      if (name.size() == line.size() || name.empty() || name.find_first_of(" \t") != llvm::StringRef::npos)
        return httpError("malformed header line '" + line.take_front(80) + "'");
      value = value.trim(" \t");
      if (name.equals_insensitive("content-length")) {
        uint64_t n = 0;
        if (value.empty() || !llvm::all_of(value, llvm::isDigit) || value.size() > 18 ||
            value.getAsInteger(10, n))
          return httpError("malformed Content-Length '" + value.take_front(40) + "'");
        if (length && *length != n)
          return httpError("two different Content-Length headers");
        length = n;
      } else if (name.equals_insensitive("transfer-encoding")) {
        if (!value.trim().equals_insensitive("chunked"))
          return httpError("unsupported Transfer-Encoding '" + value.take_front(40) + "'");
        chunked = true;
      }
    }
    // Interim responses (100 Continue) precede the real one.
    if (status < 200) {
      start = out.bodyOffset;
      continue;
    }
    if (status == 204 || status == 304) {
      out.framing = HttpFraming::Length;
      out.contentLength = 0;
    } else if (chunked) {
      out.framing = HttpFraming::Chunked; // it overrides any Content-Length
    } else if (length) {
      out.framing = HttpFraming::Length;
      out.contentLength = *length;
    }
    return out;
  }
}

/// Decodes a chunked body: `<hex size>[;ext]\r\n<data>\r\n` ... `0\r\n`
/// [trailers] `\r\n`.
static llvm::Expected<std::string> decodeChunked(llvm::StringRef in, uint64_t maxBody) {
  std::string body;
  while (true) {
    size_t eol = in.find("\r\n");
    if (eol == llvm::StringRef::npos)
      return httpError("the chunked body is cut short");
    llvm::StringRef sizeText = in.substr(0, eol).split(';').first.trim(" \t");
    uint64_t size = 0;
    if (sizeText.empty() || sizeText.size() > 15 || !llvm::all_of(sizeText, llvm::isHexDigit) ||
        sizeText.getAsInteger(16, size))
      return httpError("malformed chunk size '" + sizeText.take_front(20) + "'");
    in = in.substr(eol + 2);
    if (size == 0) {
      // Trailers, if any, end with an empty line.
      if (in.starts_with("\r\n") || in.contains("\r\n\r\n"))
        return body;
      return httpError("the chunked body is cut short");
    }
    if (body.size() + size > maxBody)
      return llvm::make_error<HttpBodyTooLargeError>(maxBody, std::nullopt);
    if (in.size() < size + 2)
      return httpError("the chunked body is cut short");
    if (in.substr(size, 2) != "\r\n")
      return httpError("a chunk does not end with CRLF");
    body += in.substr(0, size).str();
    in = in.substr(size + 2);
  }
}

llvm::Expected<HttpResponse> neuronc::parseHttpResponse(llvm::StringRef bytes,
                                                        uint64_t maxBody) {
  llvm::Expected<std::optional<HttpResponseHead>> head = parseHttpResponseHead(bytes);
  if (!head)
    return head.takeError();
  if (!*head)
    return httpError(bytes.empty() ? "the connection closed without a response"
                                   : "the response header is cut short");
  HttpResponse out;
  out.status = (*head)->status;
  out.reason = (*head)->reason;
  llvm::StringRef rest = bytes.substr((*head)->bodyOffset);
  switch ((*head)->framing) {
  case HttpFraming::Length: {
    uint64_t n = (*head)->contentLength;
    if (n > maxBody)
      return llvm::make_error<HttpBodyTooLargeError>(maxBody, n);
    if (rest.size() < n)
      return httpError("the response body is cut short (" + llvm::Twine(rest.size()) + " of " +
                       llvm::Twine(n) + " bytes)");
    out.body = rest.substr(0, n).str();
    return out;
  }
  case HttpFraming::Chunked: {
    llvm::Expected<std::string> body = decodeChunked(rest, maxBody);
    if (!body)
      return body.takeError();
    out.body = std::move(*body);
    return out;
  }
  case HttpFraming::UntilClose:
    if (rest.size() > maxBody)
      return llvm::make_error<HttpBodyTooLargeError>(maxBody, std::nullopt);
    out.body = rest.str();
    return out;
  }
  llvm_unreachable("all framings handled");
}

//===----------------------------------------------------------------------===//
// Sockets
//===----------------------------------------------------------------------===//

namespace {

/// A socket closed when it goes out of scope.
struct Socket {
  int fd = -1;
  Socket() = default;
  Socket(const Socket &) = delete;
  Socket &operator=(const Socket &) = delete;
  ~Socket() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Waits until `fd` is ready for `events`: 1 ready, 0 timed out, -1 error.
int waitFor(int fd, short events, std::chrono::milliseconds timeout) {
  pollfd p{fd, events, 0};
  while (true) {
    int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (r < 0 && errno == EINTR)
      continue;
    return r < 0 ? -1 : r;
  }
}

std::string seconds(std::chrono::milliseconds t) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%g", t.count() / 1000.0) << " s";
  return s;
}

} // namespace

/// Opens a non-blocking TCP connection to `server`, trying every address its
/// host resolves to, each for at most `timeout`.
static llvm::Error connectTo(const HttpUrl &server, std::chrono::milliseconds timeout,
                             Socket &sock) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo *found = nullptr;
  std::string port = std::to_string(server.port);
  if (int rc = ::getaddrinfo(server.host.c_str(), port.c_str(), &hints, &found))
    return httpError("cannot resolve host '" + server.host + "': " + ::gai_strerror(rc));
  std::string why;
  for (addrinfo *a = found; a; a = a->ai_next) {
    Socket s;
    s.fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (s.fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    if (::connect(s.fd, a->ai_addr, a->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        why = std::strerror(errno);
        continue;
      }
      int ready = waitFor(s.fd, POLLOUT, timeout);
      if (ready == 0) {
        why = "no answer within " + seconds(timeout);
        continue;
      }
      int err = 0;
      socklen_t len = sizeof(err);
      if (ready < 0 || ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
      if (err) {
        why = std::strerror(err);
        continue;
      }
    }
    std::swap(sock.fd, s.fd);
    ::freeaddrinfo(found);
    return llvm::Error::success();
  }
  ::freeaddrinfo(found);
  return httpError("cannot connect to " + server.authority() + ": " +
                   (why.empty() ? std::string("no address") : why));
}

llvm::Expected<HttpResponse> HttpClient::request(llvm::StringRef method, const HttpUrl &server,
                                                 llvm::StringRef path, llvm::StringRef body,
                                                 uint64_t maxBody) {
  Socket sock;
  if (llvm::Error err = connectTo(server, timeout, sock))
    return std::move(err);

  std::string head;
  llvm::raw_string_ostream os(head);
  os << method << " " << server.path << path << " HTTP/1.1\r\n"
     << "Host: " << server.authority() << "\r\n"
     << "User-Agent: neuronc\r\n"
     << "Connection: close\r\n";
  if (method == "PUT")
    os << "Content-Type: application/octet-stream\r\n"
       << "Content-Length: " << body.size() << "\r\n";
  os << "\r\n";

  // Send the head, then the body; MSG_NOSIGNAL: a closed peer is an error,
  // not a SIGPIPE.
  for (llvm::StringRef part : {llvm::StringRef(head), body}) {
    while (!part.empty()) {
      ssize_t n = ::send(sock.fd, part.data(), part.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        int ready = waitFor(sock.fd, POLLOUT, timeout);
        if (ready == 0)
          return httpError(server.authority() + " took nothing for " + seconds(timeout));
        if (ready < 0)
          return httpError("cannot send to " + server.authority() + ": " +
                           std::strerror(errno));
        continue;
      }
      if (n < 0)
        return httpError("cannot send to " + server.authority() + ": " + std::strerror(errno));
      part = part.drop_front(static_cast<size_t>(n));
    }
  }

  // Receive until the announced body is complete, or the server closes.
  std::string in;
  std::optional<HttpResponseHead> parsed;
  char buf[64 * 1024];
  while (true) {
    if (parsed && parsed->framing == HttpFraming::Length &&
        in.size() >= parsed->bodyOffset + parsed->contentLength)
      break;
    int ready = waitFor(sock.fd, POLLIN, timeout);
    if (ready == 0)
      return httpError(server.authority() + " sent nothing for " + seconds(timeout));
    if (ready < 0)
      return httpError("cannot read from " + server.authority() + ": " + std::strerror(errno));
    ssize_t n = ::recv(sock.fd, buf, sizeof(buf), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (n < 0)
      return httpError("cannot read from " + server.authority() + ": " + std::strerror(errno));
    if (n == 0)
      break; // closed
    in.append(buf, static_cast<size_t>(n));
    if (!parsed) {
      auto h = parseHttpResponseHead(in);
      if (!h)
        return httpError("malformed response from " + server.authority() + ": " +
                         llvm::toString(h.takeError()));
      parsed = *h;
      if (parsed && parsed->framing == HttpFraming::Length && parsed->contentLength > maxBody)
        return llvm::make_error<HttpBodyTooLargeError>(maxBody, parsed->contentLength);
    }
    // A body without a length cannot grow past the limit (plus chunk framing).
    if (in.size() > kMaxHeadBytes + 2 * maxBody + 1024)
      return llvm::make_error<HttpBodyTooLargeError>(maxBody, std::nullopt);
  }
  llvm::Expected<HttpResponse> response = parseHttpResponse(in, maxBody);
  if (!response)
    return llvm::handleErrors(response.takeError(),
                              [](std::unique_ptr<HttpBodyTooLargeError> e) -> llvm::Error {
                                return llvm::Error(std::move(e));
                              },
                              [&](const llvm::ErrorInfoBase &e) -> llvm::Error {
                                return httpError("malformed response from " +
                                                 server.authority() + ": " + e.message());
                              });
  return response;
}

llvm::Expected<HttpResponse> HttpClient::get(const HttpUrl &server, llvm::StringRef path,
                                             uint64_t maxBody) {
  return request("GET", server, path, "", maxBody);
}

llvm::Expected<HttpResponse> HttpClient::put(const HttpUrl &server, llvm::StringRef path,
                                             llvm::StringRef body) {
  // A PUT's answer is a status and perhaps a short page.
  return request("PUT", server, path, body, /*maxBody=*/64 * 1024);
}
