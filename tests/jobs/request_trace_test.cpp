// LLM request traces: the Azure 2023, Mooncake and plain readers against hand-written files (times from the
// first request, sorted, ties in file order), their located errors, rate scaling and filling a horizon, and
// the shared traces' request counts.
#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>

#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/jobs/request_trace.hpp"
#include "test_support.hpp"

namespace fleetwatt::jobs {
namespace {

RequestTrace read(const std::string& text) {
  std::istringstream in(text);
  return read_request_trace(in, "t.csv");
}

std::string error_of(const std::string& text) {
  try {
    (void)read(text);
  } catch (const core::TraceFormatError& e) {
    return e.what();
  }
  return "no error";
}

TEST_CASE("An Azure 2023 trace: seconds from its first request, its token counts", "[jobs][requests]") {
  const RequestTrace t = read(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n"
      "2023-11-16 18:15:50.9951690,396,109\n");
  CHECK(t.format == "azure2023");
  REQUIRE(t.requests.size() == 2);
  CHECK(t.requests[0].arrival_s == 0.0);
  CHECK(t.requests[1].arrival_s == Approx(4.314579).margin(1e-6));
  CHECK(t.requests[1].input_tokens == 396);
  CHECK(t.requests[1].output_tokens == 109);
  CHECK(t.requests[1].record == 3);
  CHECK(t.span_s() == Approx(4.314579).margin(1e-6));
}

TEST_CASE("Mooncake's JSON lines and the plain CSV, arrivals sorted, ties in file order",
          "[jobs][requests]") {
  const RequestTrace m = read(
      "{\"timestamp\": 0, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, 1]}\n"
      "{\"timestamp\": 1500, \"input_length\": 10, \"output_length\": 3}\n");
  CHECK(m.format == "mooncake");
  REQUIRE(m.requests.size() == 2);
  CHECK(m.requests[1].arrival_s == 1.5);
  CHECK(m.requests[0].input_tokens == 6758);
  const RequestTrace p = read("time_s,input_tokens,output_tokens\n5,1,1\n2,7,8\n5,2,2\n");
  CHECK(p.format == "plain");
  REQUIRE(p.requests.size() == 3);
  CHECK(p.requests[0].input_tokens == 7);
  CHECK(p.requests[0].arrival_s == 0.0);
  CHECK(p.requests[1].arrival_s == 3.0);
  CHECK(p.requests[1].input_tokens == 1);  // the tie at 5 s keeps file order
  CHECK(p.requests[2].input_tokens == 2);
}

TEST_CASE("A bad request record is one located error naming its field", "[jobs][requests]") {
  CHECK_THAT(error_of("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,374,44\n"
                      "2023-11-16 18:15:47,-1,44\n"),
             Catch::Contains("t.csv:3:") && Catch::Contains("ContextTokens"));
  CHECK_THAT(error_of("TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,374,44\n"),
             Catch::Contains("t.csv:2:") && Catch::Contains("TIMESTAMP"));
  CHECK_THAT(error_of("time_s,input_tokens,output_tokens\n1,2,0\n"),
             Catch::Contains("t.csv:2:") && Catch::Contains("output_tokens"));
  CHECK_THAT(error_of("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\n"
                      "{\"timestamp\": 1, \"input_length\": 1}\n"),
             Catch::Contains("t.csv:2") && Catch::Contains("output_length"));
  CHECK_THAT(error_of("{\"timestamp\": 0, \"input_length\": 1.5, \"output_length\": 1}\n"),
             Catch::Contains("input_length"));
  CHECK_THAT(error_of("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\n{oops\n"),
             Catch::Contains("t.csv:2") && Catch::Contains("json"));
  CHECK_THAT(error_of("a,b,c\n1,2,3\n"), Catch::Contains("header") && Catch::Contains("azure2023"));
  CHECK_THAT(error_of("time_s,input_tokens,output_tokens\n"), Catch::Contains("no request"));
}

TEST_CASE("A trace runs faster at a rate scale and repeats to fill a horizon at the same rate",
          "[jobs][requests]") {
  const RequestTrace t = read("time_s,input_tokens,output_tokens\n0,1,1\n1,2,2\n2,3,3\n");
  const RequestTrace fast = scale_and_fill(t, 2.0, 0.0);
  CHECK(fast.requests[2].arrival_s == 1.0);
  // Span 2 s over 3 requests: a copy every 2 + 1 s; 7 s hold 0 .. 6.
  const RequestTrace filled = scale_and_fill(t, 1.0, 7.0);
  REQUIRE(filled.requests.size() == 7);
  for (std::size_t i = 0; i < 7; ++i) CHECK(filled.requests[i].arrival_s == double(i));
  CHECK(filled.requests[4].input_tokens == 2);
  CHECK_THROWS_AS(scale_and_fill(t, 0.0, 0.0), std::invalid_argument);
  const RequestTrace instant = read("time_s,input_tokens,output_tokens\n0,1,1\n0,2,2\n");
  CHECK_THROWS_AS(scale_and_fill(instant, 1.0, 10.0), std::invalid_argument);
}

TEST_CASE("The shared request traces read whole", "[jobs][requests]") {
  FLEETWATT_REQUIRE_SHARED_DATA(data);
  // Request counts as their SOURCE.txt states them.
  const RequestTrace conv =
      read_request_trace(data / "azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv");
  CHECK(conv.requests.size() == 19366);
  CHECK(conv.format == "azure2023");
  CHECK(
      read_request_trace(data / "azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv").requests.size() ==
      8819);
  const RequestTrace moon = read_request_trace(data / "mooncake-fast25/conversation_trace.jsonl");
  CHECK(moon.format == "mooncake");
  CHECK(moon.requests.size() == 12031);
}

}  // namespace
}  // namespace fleetwatt::jobs
