//===- HttpClient.h - A small HTTP/1.1 client over POSIX sockets -*- C++ -*-===//
//
// What the shared compile cache (`neuronc --cache-url`) needs from HTTP and
// no more: plain http:// URLs, GET and PUT, one request per connection
// (`Connection: close`), request bodies sent with `Content-Length`, response
// bodies framed by `Content-Length`, chunked or by the end of the
// connection, and every wait (connecting, sending, receiving) bounded by a
// timeout. LLVM's own HTTPClient is GET-only and needs libcurl, hence this.
// The response parser is separate from the sockets so that it can be tested
// on canned bytes.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_SUPPORT_HTTPCLIENT_H
#define NEURONC_SUPPORT_HTTPCLIENT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace neuronc {

/// An `http://host[:port][/path]` URL, split into what a request needs.
struct HttpUrl {
  std::string host; ///< a name or an address (an IPv6 address without its brackets)
  uint16_t port = 80;
  std::string path; ///< "" or "/a/b": no trailing '/', no query

  /// Parses `url`; the error says what is wrong with it and what is
  /// accepted (only http://: no https, no user name, no query).
  static llvm::Expected<HttpUrl> parse(llvm::StringRef url);
  /// `host:port` as a Host header and messages write it.
  std::string authority() const;
  /// The normalized URL: `http://host:port/path`.
  std::string str() const;
};

/// A response: the status code, its reason phrase and the body.
struct HttpResponse {
  unsigned status = 0;
  std::string reason;
  std::string body;
};

/// How the body of a response ends.
enum class HttpFraming { Length, Chunked, UntilClose };

/// A parsed status line and header section.
struct HttpResponseHead {
  unsigned status = 0;
  std::string reason;
  size_t bodyOffset = 0; ///< where the body starts in the bytes
  HttpFraming framing = HttpFraming::UntilClose;
  uint64_t contentLength = 0; ///< for HttpFraming::Length
};

/// Parses the head of a response at the start of `bytes`, skipping interim
/// 1xx responses. std::nullopt while the header section is incomplete; an
/// error when it is malformed (the error says where).
llvm::Expected<std::optional<HttpResponseHead>> parseHttpResponseHead(llvm::StringRef bytes);

/// Parses a whole response, as received until the server closed the
/// connection (or until the announced length): head, then the body by its
/// framing. A body that is cut short or badly chunked is an error, one
/// longer than `maxBody` bytes an HttpBodyTooLargeError. Responses to 204 and 304 have no body.
llvm::Expected<HttpResponse> parseHttpResponse(llvm::StringRef bytes, uint64_t maxBody);

/// The error of a response whose body is longer than the caller allowed:
/// the server answered, with more than it should have.
class HttpBodyTooLargeError : public llvm::ErrorInfo<HttpBodyTooLargeError> {
public:
  static char ID;
  HttpBodyTooLargeError(uint64_t maxBody, std::optional<uint64_t> announced)
      : maxBody(maxBody), announced(announced) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  uint64_t maxBody;
  std::optional<uint64_t> announced; ///< the Content-Length, when there was one
};

/// A minimal HTTP/1.1 client: one connection per request, every wait bounded
/// by `timeout` (a connection that does not open, or a transfer that makes
/// no progress, for that long fails). Errors name the server and what failed
/// ("cannot connect to 127.0.0.1:1: Connection refused"). Name resolution
/// (getaddrinfo) is not bounded by the timeout; addresses are.
class HttpClient {
public:
  explicit HttpClient(std::chrono::milliseconds timeout) : timeout(timeout) {}

  /// GET `server.path + path`; a body over `maxBody` bytes is refused.
  llvm::Expected<HttpResponse> get(const HttpUrl &server, llvm::StringRef path,
                                   uint64_t maxBody);
  /// PUT `body` at `server.path + path`.
  llvm::Expected<HttpResponse> put(const HttpUrl &server, llvm::StringRef path,
                                   llvm::StringRef body);

private:
  llvm::Expected<HttpResponse> request(llvm::StringRef method, const HttpUrl &server,
                                       llvm::StringRef path, llvm::StringRef body,
                                       uint64_t maxBody);
  std::chrono::milliseconds timeout;
};

} // namespace neuronc

#endif // NEURONC_SUPPORT_HTTPCLIENT_H
