// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Integration test of the "Kernel other" split (docs/page-classes.md 2.5): network page_pool
// pages made without a NIC. A veth device with an XDP program receives in NAPI mode, and
// veth_convert_skb_to_xdp_buff() (drivers/net/veth.c, 6.5+) copies each frame into a page from
// the queue's page_pool; the pool keeps pages cached until the device goes away.
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <chrono>
#include <thread>

#include "helpers.h"

using namespace mstest;

namespace {

long long page_pool_pages()
{
	RunResult r = run_memstat({ "--json" });
	if (r.status != 0)
		return -1;
	return json::parse(r.out)["detail"]["kernel_page_pool"].get<long long>();
}

// A veth pair a <-> b, as "ip link add a type veth peer name b" makes it (RTM_NEWLINK with the
// peer in IFLA_LINKINFO's data), then both and lo up: 0, or -errno. Netlink itself, so that no
// iproute2 is needed (the VMs have busybox's ip, which makes no veth).
int make_veth_up(const char *a, const char *b)
{
	struct {
		struct nlmsghdr n;
		struct ifinfomsg i;
		char attrs[512];
	} req = {};
	auto put = [&](unsigned short type, const void *data, size_t len) {
		struct rtattr *r = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.n.nlmsg_len));
		r->rta_type = type;
		r->rta_len = (unsigned short)RTA_LENGTH(len);
		if (len)
			memcpy(RTA_DATA(r), data, len);
		req.n.nlmsg_len = NLMSG_ALIGN(req.n.nlmsg_len) + RTA_ALIGN(r->rta_len);
		return r;
	};
	auto close_nest = [&](struct rtattr *r) {
		r->rta_len = (unsigned short)((char *)&req + req.n.nlmsg_len - (char *)r);
	};
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	req.n.nlmsg_type = RTM_NEWLINK;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
	req.i.ifi_family = AF_UNSPEC;
	put(IFLA_IFNAME, a, strlen(a) + 1);
	struct rtattr *info = put(IFLA_LINKINFO, nullptr, 0);
	put(IFLA_INFO_KIND, "veth", 4);
	struct rtattr *data = put(IFLA_INFO_DATA, nullptr, 0);
	struct rtattr *peer = put(VETH_INFO_PEER, nullptr, 0);
	struct ifinfomsg peer_info = {};	/* the peer's ifinfomsg, then its attributes */
	memcpy((char *)&req + req.n.nlmsg_len, &peer_info, sizeof(peer_info));
	req.n.nlmsg_len += NLMSG_ALIGN(sizeof(peer_info));
	put(IFLA_IFNAME, b, strlen(b) + 1);
	close_nest(peer);
	close_nest(data);
	close_nest(info);

	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		return -errno;
	struct sockaddr_nl kernel = {};
	kernel.nl_family = AF_NETLINK;
	int err = 0;
	if (sendto(s, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		err = -errno;
	} else {
		char buf[4096];
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || h->nlmsg_type != NLMSG_ERROR)
			err = -EPROTO;
		else
			err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
	close(s);
	if (err)
		return err;
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u < 0)
		return -errno;
	for (const char *name : { "lo", a, b }) {
		struct ifreq ifr = {};
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
		if (ioctl(u, SIOCGIFFLAGS, &ifr) || (ifr.ifr_flags |= IFF_UP, ioctl(u, SIOCSIFFLAGS, &ifr))) {
			err = -errno;
			break;
		}
	}
	close(u);
	return err;
}

// In a new network namespace: a veth pair, XDP_PASS on kvb, frames sent from kva. Writes one
// byte to ready (0: done, else an errno-like step number), then waits for the parent to close
// go before the namespace (and the pool) goes away with this process.
void veth_child(int ready, int go)
{
	char ok = 0;
	auto fail = [&](char step) {
		ok = step;
		(void)!write(ready, &ok, 1);
		_exit(1);
	};

	if (unshare(CLONE_NEWNET))
		fail(1);
	if (make_veth_up("kva", "kvb"))
		fail(2);
	struct bpf_insn prog[] = {
		{ BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_PASS },
		{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "kother_pass", "GPL", prog, 2, nullptr);
	if (fd < 0)
		fail(3);
	int kvb = (int)if_nametoindex("kvb"), kva = (int)if_nametoindex("kva");
	if (!kvb || !kva || bpf_xdp_attach(kvb, fd, 0, nullptr))
		fail(4);
	int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (s < 0)
		fail(5);
	struct sockaddr_ll to = {};
	to.sll_family = AF_PACKET;
	to.sll_ifindex = kva;
	to.sll_halen = ETH_ALEN;
	memset(to.sll_addr, 0xff, ETH_ALEN);
	unsigned char frame[1000] = {};
	memset(frame, 0xff, ETH_ALEN);		// broadcast
	frame[6] = 0x02;			// a locally administered source
	frame[12] = 0x88, frame[13] = 0xb5;	// IEEE local experimental ethertype
	for (int i = 0; i < 4000; i++)
		if (sendto(s, frame, sizeof(frame), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			fail(6);
	std::this_thread::sleep_for(std::chrono::milliseconds(300));	// NAPI drains the ring
	(void)!write(ready, &ok, 1);
	char c;
	(void)!read(go, &c, 1);
	_exit(0);
}

TEST(KernelOther, VethXdpPagePoolPagesArePagePool)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (!uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	    (major < 6 || (major == 6 && minor < 5)))
		GTEST_SKIP() << "veth takes XDP frames from a page_pool from 6.5 on (this is "
			     << u.release << ")";
	long long before = page_pool_pages();
	ASSERT_GE(before, 0);
	int ready[2], go[2];
	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(pipe(go), 0);
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		veth_child(ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	char step = -1;
	ASSERT_EQ(read(ready[0], &step, 1), 1);
	if (step == 1 || step == 2 || step == 4) {
		close(go[1]);
		waitpid(pid, nullptr, 0);
		GTEST_SKIP() << "this kernel cannot make a veth pair with XDP in a new network "
				"namespace (step " << (int)step << ": 1 unshare, 2 a veth pair, 4 "
				"XDP attach)";
	}
	ASSERT_EQ(step, 0) << "step " << (int)step << " failed (3 XDP load, 5 socket, 6 send)";
	long long with = page_pool_pages();
	close(go[1]);
	int st = 0;
	waitpid(pid, &st, 0);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	// the namespace's veth and its pools go away with the child; page_pool_destroy() returns
	// the cached pages (a deferred release retries every second)
	long long after = -1;
	for (int i = 0; i < 20; i++) {
		after = page_pool_pages();
		if (after <= before)
			break;
		std::this_thread::sleep_for(std::chrono::milliseconds(500));
	}
	EXPECT_GT(with, before) << "the veth queue's page_pool pages are not kernel_page_pool";
	EXPECT_LE(after, before) << "page_pool pages left after the veth pair is gone";
	printf("kernel_page_pool: %lld before, %lld with the veth pair, %lld after\n", before,
	       with, after);
}

}  // namespace
