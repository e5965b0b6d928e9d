// peers/ns3/tcpbulk.cc — the ackstall project's ns-3 peer: one bulk TCP transfer, ttcp style.
//
// A transmitter writes nWrites blocks of writeSize bytes into an ns-3 TCP socket (ttcp -t); a
// receiver reads everything as soon as it arrives (ttcp -r). The two nodes are joined by a
// point-to-point link of 100 Mbit/s and 50 us, MTU 1500. TCP: NewReno, MSS 1460, no
// timestamps, Nagle on, delayed ACK every DelAckCount (2) segments or after DelAckTimeout
// (200 ms). The figures this prints are the ones tests/sim_validation/ns3_compare.sh and
// bench/sim_vs_ns3.sh read:
//     goodput_MiBps(t=0..last_rx)=X      data bytes / (time of the last data arrival), MiB/s
//     events=N run_wall_s=W              ns-3 events executed, wall time of Simulator::Run
//
// Build: peers/ns3/build.sh OUTDIR (Debian packages ns3, libns3-dev: ns-3 3.37).
// Run:   tcpbulk --sndBuf=8192 --rcvBuf=16384 [--writeSize=8192 --nWrites=30000] [--pcap=prefix]
// What ns-3 models here and what it does not: peers/ns3/README.md.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <string>

using namespace ns3;

namespace {

// ttcp -t: connect, then write `writes` blocks of `len` bytes. ns-3's TcpSocketBase::Send
// takes a block only if it fits whole in the free send buffer (TcpTxBuffer::Add) and returns -1
// otherwise; the block is then offered again from the socket's send callback, which ns-3 calls
// when ACKs free buffer space. After the last block is accepted the socket is closed (the FIN
// follows the data once the buffer drains).
class TtcpTransmitter : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ackstall::TtcpTransmitter")
                                .SetParent<Application>()
                                .AddConstructor<TtcpTransmitter>();
        return tid;
    }

    void Configure(Address peer, uint32_t len, uint64_t writes)
    {
        m_peer = peer;
        m_len = len;
        m_writes = writes;
    }

    uint64_t BlocksWritten() const { return m_done; }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        if (m_socket->Bind() == -1)
        {
            NS_FATAL_ERROR("transmitter: bind failed");
        }
        m_socket->Connect(m_peer);
        m_socket->ShutdownRecv(); // ttcp -t never reads
        m_socket->SetConnectCallback(MakeCallback(&TtcpTransmitter::Connected, this),
                                     MakeCallback(&TtcpTransmitter::Failed, this));
        m_socket->SetSendCallback(MakeCallback(&TtcpTransmitter::SpaceFreed, this));
    }

    void StopApplication() override
    {
        if (m_socket)
        {
            m_socket->Close();
        }
    }

    void Connected(Ptr<Socket>)
    {
        m_open = true;
        WriteBlocks();
    }

    void Failed(Ptr<Socket>) { NS_FATAL_ERROR("transmitter: connection failed"); }

    void SpaceFreed(Ptr<Socket>, uint32_t)
    {
        if (m_open)
        {
            WriteBlocks();
        }
    }

    // Write as many whole blocks as the socket accepts now.
    void WriteBlocks()
    {
        while (m_done < m_writes)
        {
            int n = m_socket->Send(Create<Packet>(m_len));
            if (n < 0)
            {
                return; // buffer full: wait for SpaceFreed
            }
            if (uint32_t(n) != m_len)
            {
                NS_FATAL_ERROR("transmitter: partial write of " << n << " bytes");
            }
            ++m_done;
        }
        if (m_open)
        {
            m_socket->Close();
            m_open = false;
        }
    }

    Ptr<Socket> m_socket;
    Address m_peer;
    uint32_t m_len = 0;
    uint64_t m_writes = 0;
    uint64_t m_done = 0;
    bool m_open = false;
};

// ttcp -r: accept one connection and read everything as soon as ns-3 reports it (reads cost
// no simulated time). Records the first and last arrival of data.
class TtcpReceiver : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ackstall::TtcpReceiver")
                                .SetParent<Application>()
                                .AddConstructor<TtcpReceiver>();
        return tid;
    }

    void Configure(uint16_t port, uint32_t readLen)
    {
        m_port = port;
        m_readLen = readLen;
    }

    uint64_t Bytes() const { return m_bytes; }
    uint64_t Reads() const { return m_reads; }
    Time FirstData() const { return m_first; }
    Time LastData() const { return m_last; }

  private:
    void StartApplication() override
    {
        m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        if (m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) == -1)
        {
            NS_FATAL_ERROR("receiver: bind failed");
        }
        m_listener->Listen();
        m_listener->ShutdownSend();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&TtcpReceiver::Accepted, this));
        m_listener->SetRecvCallback(MakeCallback(&TtcpReceiver::Readable, this));
    }

    void StopApplication() override
    {
        if (m_conn)
        {
            m_conn->Close();
        }
        m_listener->Close();
    }

    void Accepted(Ptr<Socket> s, const Address&)
    {
        m_conn = s;
        s->SetRecvCallback(MakeCallback(&TtcpReceiver::Readable, this));
    }

    void Readable(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv(m_readLen, 0)) && p->GetSize() > 0)
        {
            if (m_bytes == 0)
            {
                m_first = Simulator::Now();
            }
            m_last = Simulator::Now();
            m_bytes += p->GetSize();
            ++m_reads;
        }
    }

    Ptr<Socket> m_listener;
    Ptr<Socket> m_conn;
    uint16_t m_port = 5001;
    uint32_t m_readLen = 8192;
    uint64_t m_bytes = 0;
    uint64_t m_reads = 0;
    Time m_first = Seconds(0);
    Time m_last = Seconds(0);
};

// Frames the transmitter's device puts on the wire and frames it receives (the ACKs).
uint64_t g_framesOut = 0;
uint64_t g_framesIn = 0;

void
FrameOut(Ptr<const Packet>)
{
    ++g_framesOut;
}

void
FrameIn(Ptr<const Packet>)
{
    ++g_framesIn;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t sndBuf = 8192;     // TcpSocket::SndBufSize (ns-3 default 131072)
    uint32_t rcvBuf = 16384;    // TcpSocket::RcvBufSize (OpenBSD's 16384 default)
    uint32_t writeSize = 8192;  // ttcp -l default
    uint32_t nWrites = 30000;   // ttcp -n, as in the seed's runs
    uint32_t readSize = 8192;   // receiver's read length
    uint32_t delAckCount = 2;   // TcpSocket::DelAckCount
    uint32_t delAckMs = 200;    // TcpSocket::DelAckTimeout
    bool noDelay = false;       // TcpSocket::TcpNoDelay (ns-3 default true: Nagle off)
    bool sack = true;           // TcpSocketBase::Sack (ns-3 default)
    bool noQdisc = true;        // remove the FqCoDel root queue disc InternetStackHelper adds
    std::string pcap;           // pcap file prefix; empty: no capture
    uint32_t snaplen = 65535;   // PcapFileWrapper::CaptureSize

    CommandLine cmd(__FILE__);
    cmd.Usage("Bulk TCP transfer over a 100 Mbit/s point-to-point link (ackstall's ns-3 peer).");
    cmd.AddValue("sndBuf", "TcpSocket::SndBufSize, bytes (both ends; the sender's counts)", sndBuf);
    cmd.AddValue("rcvBuf", "TcpSocket::RcvBufSize, bytes (both ends; the receiver's counts)", rcvBuf);
    cmd.AddValue("writeSize", "bytes per application write (ttcp -l)", writeSize);
    cmd.AddValue("nWrites", "number of application writes (ttcp -n)", nWrites);
    cmd.AddValue("readSize", "bytes per application read on the receiver", readSize);
    cmd.AddValue("delAckCount", "TcpSocket::DelAckCount: segments per immediate ACK", delAckCount);
    cmd.AddValue("delAckMs", "TcpSocket::DelAckTimeout, ms", delAckMs);
    cmd.AddValue("noDelay", "TcpSocket::TcpNoDelay: true turns Nagle off", noDelay);
    cmd.AddValue("sack", "TcpSocketBase::Sack", sack);
    cmd.AddValue("noQdisc", "remove the default root queue disc on both devices", noQdisc);
    cmd.AddValue("pcap", "write PPP pcap files with this prefix (empty: none)", pcap);
    cmd.AddValue("snaplen", "pcap capture size, bytes", snaplen);
    cmd.Parse(argc, argv);
    if (writeSize == 0 || nWrites == 0 || readSize == 0)
    {
        std::fprintf(stderr, "writeSize, nWrites and readSize must be > 0\n");
        return 2;
    }

    // Every socket gets the same TCP configuration (both ends, as attribute defaults).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(delAckMs)));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(noDelay));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::PcapFileWrapper::CaptureSize", UintegerValue(snaplen));

    NodeContainer hosts;
    hosts.Create(2); // 0 = transmitter, 1 = receiver

    PointToPointHelper wire;
    wire.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    wire.SetDeviceAttribute("Mtu", UintegerValue(1500));
    wire.SetChannelAttribute("Delay", StringValue("50us"));
    NetDeviceContainer nics = wire.Install(hosts);

    InternetStackHelper ip;
    ip.Install(hosts);
    Ipv4AddressHelper net;
    net.SetBase("10.77.0.0", "255.255.255.0");
    Ipv4InterfaceContainer addrs = net.Assign(nics);
    if (noQdisc)
    {
        TrafficControlHelper().Uninstall(nics);
    }

    const uint16_t port = 5001; // ttcp's port
    Ptr<TtcpReceiver> rx = CreateObject<TtcpReceiver>();
    rx->Configure(port, readSize);
    hosts.Get(1)->AddApplication(rx);
    rx->SetStartTime(Seconds(0));

    Ptr<TtcpTransmitter> tx = CreateObject<TtcpTransmitter>();
    tx->Configure(InetSocketAddress(addrs.GetAddress(1), port), writeSize, nWrites);
    hosts.Get(0)->AddApplication(tx);
    tx->SetStartTime(Seconds(0));

    nics.Get(0)->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&FrameOut));
    nics.Get(0)->TraceConnectWithoutContext("MacRx", MakeCallback(&FrameIn));
    if (!pcap.empty())
    {
        wire.EnablePcapAll(pcap, false);
    }

    const auto wallStart = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    const uint64_t events = Simulator::GetEventCount();
    const double simEnd = Simulator::Now().GetSeconds();

    const uint64_t expected = uint64_t(writeSize) * nWrites;
    const double mib = double(rx->Bytes()) / (1024.0 * 1024.0);
    const double last = rx->LastData().GetSeconds();  // t = 0: the transmitter's SYN
    const double span = (rx->LastData() - rx->FirstData()).GetSeconds();
    const double nan = std::numeric_limits<double>::quiet_NaN();

    std::printf("config sndBuf=%u rcvBuf=%u write=%u x %u read=%u delAckCount=%u "
                "delAckTimeout=%ums noDelay=%d sack=%d noQdisc=%d\n",
                sndBuf, rcvBuf, writeSize, nWrites, readSize, delAckCount, delAckMs, noDelay,
                sack, noQdisc);
    std::printf("rx_bytes=%" PRIu64 " (expected %" PRIu64 ") writes_accepted=%" PRIu64
                " reads=%" PRIu64 " first_rx=%.9f s last_rx=%.9f s sim_end=%.9f s\n",
                rx->Bytes(), expected, tx->BlocksWritten(), rx->Reads(),
                rx->FirstData().GetSeconds(), last, simEnd);
    std::printf("goodput_MiBps(t=0..last_rx)=%.4f goodput_MiBps(first..last_rx)=%.4f "
                "goodput_Mbps=%.3f\n",
                last > 0 ? mib / last : nan, span > 0 ? mib / span : nan,
                last > 0 ? double(rx->Bytes()) * 8.0 / last / 1e6 : nan);
    std::printf("sender_dev_tx_pkts=%" PRIu64 " sender_dev_rx_pkts(acks)=%" PRIu64 "\n",
                g_framesOut, g_framesIn);
    std::printf("events=%" PRIu64 " run_wall_s=%.3f events_per_wall_s=%.0f\n", events, wall,
                wall > 0 ? double(events) / wall : nan);
    Simulator::Destroy();
    return rx->Bytes() == expected ? 0 : 1;
}
