// Result<T> and Status: how every grader_core function reports failure. Library code never exits
// and never lets an exception out of its API; it returns the value or an error string that names
// what went wrong, and only labgrade's main turns errors into exit codes (ninja does the same).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace labkit {

// The error half of a Result: a message meant for a person (a student or a lab author).
struct Error {
  std::string message;
};

inline Error MakeError(std::string message) { return Error{std::move(message)}; }

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit, like std::expected
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  // Precondition: !ok().
  const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

// A Result without a value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error.message)) {}  // NOLINT

  static Status Ok() { return Status(); }
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  // Precondition: !ok().
  const std::string& error() const { return *error_; }

 private:
  std::optional<std::string> error_;
};

}  // namespace labkit
