// ackstall/analysis/capture_scenario.h — capture -> scenario (`ackstall scan --emit-scenario`):
// a simulator scenario (TOML, the keys of `ackstall sim --list-keys`) built from one capture's own
// figures: MSS, timestamps, RTT from the handshake, link rate from back-to-back spacing, the
// in-flight limit as Winsock's per-send quota, the write size and count, and a receiver profile
// whose delayed-ACK timer and ACK rule fit the capture: a sim::ExperimentConfig over two profiles,
// written by scenario::ScenarioWriter (scenario/writer.h) through the key table.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ackstall/pcap/error.h"
#include "ackstall/pcap/scan_file.h"

namespace ackstall::analysis {

// The scenario text for the first direction that carried data; an error when none did.
pcap::Result<std::string> scan_scenario_toml(const pcap::FileScan& scan);
// Why the scenario may not reproduce the capture's goodput, one sentence each (empty: no known
// reason): stalls too rare to be a rule, an application's pacing, waits below the threshold.
std::vector<std::string> scenario_caveats(const pcap::FileScan& scan);
// The emitted scenario replayed in the simulator, as it stands and with the library's chunking
// (the `robust` policy): their goodput beside the capture's.
struct ScenarioReplay {
  double capture_mib_s = 0, replay_mib_s = 0, robust_mib_s = 0;
  double deviation = 0;  // replay / capture - 1
};
pcap::Result<ScenarioReplay> replay_scan_scenario(const pcap::FileScan& scan);
// Writes it; returns a one-phrase summary ("flow A -> B, receiver openbsd-3.9").
pcap::Result<std::string> write_scan_scenario(const pcap::FileScan& scan, const std::filesystem::path& path);

}  // namespace ackstall::analysis
