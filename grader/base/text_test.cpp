#include "text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>

namespace labkit {
namespace {

TEST(Trimmed, DropsBlanksAtBothEndsOnly) {
  EXPECT_EQ(Trimmed("  used 1 barriers\r\n"), "used 1 barriers");
  EXPECT_EQ(Trimmed("\tGPU-a , b\t"), "GPU-a , b");
  EXPECT_EQ(Trimmed("plain"), "plain");
  EXPECT_EQ(Trimmed(" \t\r\n"), "");
  EXPECT_EQ(Trimmed(""), "");
}

TEST(ValidUtf8, KeepsValidTextAndNewlines) {
  EXPECT_EQ(ValidUtf8("José: \xE2\x9C\x93 ok\n\tnext \xF0\x9F\x98\x80"),
            "José: \xE2\x9C\x93 ok\n\tnext \xF0\x9F\x98\x80");
}

TEST(ValidUtf8, ReplacesEveryInvalidForm) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(ValidUtf8("a\xFF"
                      "b"),
            "a" + fffd + "b");                                          // never a UTF-8 byte
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), fffd + fffd);                        // overlong '/'
  EXPECT_EQ(ValidUtf8("\xE0\x80\xAF"), fffd + fffd + fffd);             // overlong, three bytes
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), fffd + fffd + fffd);             // a UTF-16 surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // above U+10FFFF
  EXPECT_EQ(ValidUtf8("\xF5\x80\x80\x80").substr(0, 3), fffd);          // above U+10FFFF
  EXPECT_EQ(ValidUtf8("end\xE2\x9C"), "end" + fffd + fffd);             // cut short
  EXPECT_EQ(ValidUtf8("bell\a\x7F"), "bell  ");                         // control bytes: spaces
}

// What a JSON writer accepts: 4000 random bytes, made valid, dump without throwing (nlohmann's
// dump throws type_error.316 on invalid UTF-8, which is what a garbage source file once caused).
TEST(ValidUtf8, RandomBytesBecomeWritableJson) {
  uint32_t x = 12345;
  std::string bytes;
  for (int i = 0; i < 4000; ++i) {
    x = x * 1664525u + 1013904223u;
    bytes += static_cast<char>(x >> 24);
  }
  EXPECT_THROW(nlohmann::json(bytes).dump(), nlohmann::json::type_error);
  EXPECT_NO_THROW(nlohmann::json(ValidUtf8(bytes)).dump());
}

TEST(HtmlEscaped, EscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlEscaped("<script>alert('x' & \"y\")</script>"),
            "&lt;script&gt;alert(&#39;x&#39; &amp; &quot;y&quot;)&lt;/script&gt;");
}

}  // namespace
}  // namespace labkit
