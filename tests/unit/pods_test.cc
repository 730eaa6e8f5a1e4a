// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Kubernetes pods (src/sys/pods.c): the kubelet's cgroup paths under both cgroup drivers and
// every QoS class, and the names read from the containers' OCI bundles (containerd, CRI-O,
// Docker), never through a symbolic link nor from another pod's bundle.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

extern "C" {
#include "pods.h"
}

namespace {

const char kId[] = "3f1c9e0b7a6d5c4b3a29180716f5e4d3c2b1a09f8e7d6c5b4a3928170615f4e3";

struct Parsed {
	bool in_pod;
	struct ms_pod_path p;
};

Parsed parse(const std::string &path)
{
	Parsed r;
	r.in_pod = ms_pod_parse(path.c_str(), &r.p);
	return r;
}

TEST(PodPath, CgroupfsDriverEveryQosClass)
{
	Parsed g = parse(std::string("/kubepods/pod0b5f-11aa/") + kId);
	ASSERT_TRUE(g.in_pod);
	EXPECT_EQ(g.p.qos, MS_QOS_GUARANTEED);
	EXPECT_STREQ(g.p.uid, "0b5f-11aa");
	EXPECT_STREQ(g.p.container, kId);
	EXPECT_STREQ(g.p.runtime, "");
	EXPECT_EQ(g.p.pod_end, strlen("/kubepods/pod0b5f-11aa"));
	EXPECT_EQ(g.p.container_end, strlen("/kubepods/pod0b5f-11aa/") + strlen(kId));

	Parsed b = parse("/kubepods/burstable/pod7-8-9/abc");
	ASSERT_TRUE(b.in_pod);
	EXPECT_EQ(b.p.qos, MS_QOS_BURSTABLE);
	EXPECT_STREQ(b.p.uid, "7-8-9");
	EXPECT_STREQ(b.p.container, "abc");

	Parsed e = parse("/kubepods/besteffort/podffff");	// the pod's own cgroup
	ASSERT_TRUE(e.in_pod);
	EXPECT_EQ(e.p.qos, MS_QOS_BESTEFFORT);
	EXPECT_STREQ(e.p.container, "");
	EXPECT_EQ(e.p.container_end, 0u);
}

TEST(PodPath, SystemdDriverEveryQosClassAndRuntime)
{
	Parsed g = parse("/kubepods.slice/kubepods-pod0b5f_11aa.slice/cri-containerd-" +
			 std::string(kId) + ".scope");
	ASSERT_TRUE(g.in_pod);
	EXPECT_EQ(g.p.qos, MS_QOS_GUARANTEED);
	EXPECT_STREQ(g.p.uid, "0b5f-11aa") << "the slice writes the UID's dashes as _";
	EXPECT_STREQ(g.p.container, kId);
	EXPECT_STREQ(g.p.runtime, "cri-containerd");

	Parsed b = parse("/kubepods.slice/kubepods-burstable.slice/"
			 "kubepods-burstable-pod1_2.slice/crio-abc.scope");
	ASSERT_TRUE(b.in_pod);
	EXPECT_EQ(b.p.qos, MS_QOS_BURSTABLE);
	EXPECT_STREQ(b.p.uid, "1-2");
	EXPECT_STREQ(b.p.runtime, "crio");

	Parsed c = parse("/kubepods.slice/kubepods-burstable.slice/"
			 "kubepods-burstable-pod1_2.slice/crio-conmon-abc.scope");
	ASSERT_TRUE(c.in_pod);
	EXPECT_STREQ(c.p.runtime, "crio-conmon");
	EXPECT_STREQ(c.p.container, "abc");

	Parsed e = parse("/kubepods.slice/kubepods-besteffort.slice/"
			 "kubepods-besteffort-pod9.slice/docker-def.scope");
	ASSERT_TRUE(e.in_pod);
	EXPECT_EQ(e.p.qos, MS_QOS_BESTEFFORT);
	EXPECT_STREQ(e.p.runtime, "docker");
}

// kind's nodes (kubelet.slice), a runtime nested in a container, and cgroups below a container
TEST(PodPath, KubepodsDeeperAndCgroupsBelowAContainer)
{
	Parsed k = parse("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
			 "kubelet-kubepods-besteffort-pod5_6.slice/cri-containerd-abc.scope");
	ASSERT_TRUE(k.in_pod);
	EXPECT_EQ(k.p.qos, MS_QOS_BESTEFFORT);
	EXPECT_STREQ(k.p.uid, "5-6");
	EXPECT_STREQ(k.p.container, "abc");

	std::string ctr = "/docker/0123/kubepods/burstable/pod1/abc";
	Parsed n = parse(ctr + "/init.scope/x");
	ASSERT_TRUE(n.in_pod);
	EXPECT_STREQ(n.p.container, "abc");
	EXPECT_EQ(n.p.container_end, ctr.size()) << "a cgroup below a container is the container's";
}

TEST(PodPath, NotPods)
{
	for (const char *p : { "/", "/system.slice/containerd.service", "/kubepods",
			       "/kubepods/burstable", "/kubepods.slice/kubepods-burstable.slice",
			       "/kubepods/besteffort/notapod/abc", "/kubepodsx/pod1/abc",
			       "/user.slice/pod1/abc", "/kubepods/pod" })
		EXPECT_FALSE(parse(p).in_pod) << p;
	// a UID or id of other characters than [A-Za-z0-9_-] is none
	EXPECT_FALSE(parse("/kubepods/pod1.2/abc").in_pod);
	Parsed odd = parse("/kubepods/pod1/a b");
	ASSERT_TRUE(odd.in_pod) << "in the pod, but in no container it can name";
	EXPECT_STREQ(odd.p.container, "");
	EXPECT_EQ(odd.p.container_end, 0u);
}

struct Bundles {
	std::string dir;

	Bundles()
	{
		char tmpl[] = "/tmp/memstat-pods-XXXXXX";
		dir = mkdtemp(tmpl);
	}
	~Bundles() { std::system(("rm -rf '" + dir + "'").c_str()); }
	void put(const std::string &rel, const std::string &text) const
	{
		std::string path = dir + "/" + rel;
		std::system(("mkdir -p \"$(dirname '" + path + "')\"").c_str());
		std::ofstream(path) << text;
	}
	struct ms_pod_names read(const char *id, const char *uid) const
	{
		const char *dirs[] = { "/nonexistent", dir.c_str() };
		struct ms_pod_names n;
		ms_pod_names_read(dirs, 2, id, uid, &n);
		return n;
	}
};

TEST(PodNames, ContainerdCriOAndDocker)
{
	Bundles b;
	b.put("c1/config.json", R"({"annotations":{
		"io.kubernetes.cri.container-type":"container",
		"io.kubernetes.cri.container-name":"web",
		"io.kubernetes.cri.sandbox-name":"shop-7d9",
		"io.kubernetes.cri.sandbox-namespace":"prod",
		"io.kubernetes.cri.sandbox-uid":"u-1"}})");
	b.put("s1/config.json", R"({"annotations":{
		"io.kubernetes.cri.container-type":"sandbox",
		"io.kubernetes.cri.sandbox-name":"shop-7d9",
		"io.kubernetes.cri.sandbox-namespace":"prod"}})");
	b.put("c2/userdata/config.json", R"({"annotations":{
		"io.kubernetes.cri-o.ContainerType":"container",
		"io.kubernetes.container.name":"db",
		"io.kubernetes.pod.name":"pg-0",
		"io.kubernetes.pod.namespace":"data",
		"io.kubernetes.pod.uid":"u-2"}})");
	b.put("c3/config.v2.json", R"({"Config":{"Labels":{
		"io.kubernetes.container.name":"POD",
		"io.kubernetes.pod.name":"old",
		"io.kubernetes.pod.namespace":"legacy"}}})");

	struct ms_pod_names n = b.read("c1", "u-1");
	ASSERT_TRUE(n.found);
	EXPECT_STREQ(n.namespace_, "prod");
	EXPECT_STREQ(n.pod, "shop-7d9");
	EXPECT_STREQ(n.container, "web");
	EXPECT_FALSE(n.sandbox);

	n = b.read("s1", "u-1");
	ASSERT_TRUE(n.found);
	EXPECT_TRUE(n.sandbox);
	EXPECT_STREQ(n.container, "POD");

	n = b.read("c2", "u-2");
	ASSERT_TRUE(n.found);
	EXPECT_STREQ(n.namespace_, "data");
	EXPECT_STREQ(n.pod, "pg-0");
	EXPECT_STREQ(n.container, "db");

	n = b.read("c3", "u-3");
	ASSERT_TRUE(n.found);
	EXPECT_STREQ(n.pod, "old");
	EXPECT_TRUE(n.sandbox);
}

TEST(PodNames, AnotherPodsBundleLinksAndJunkAreNone)
{
	Bundles b;
	b.put("c1/config.json", R"({"annotations":{
		"io.kubernetes.cri.container-name":"web",
		"io.kubernetes.cri.sandbox-name":"a","io.kubernetes.cri.sandbox-namespace":"b",
		"io.kubernetes.cri.sandbox-uid":"other-pod"}})");
	EXPECT_FALSE(b.read("c1", "this-pod").found) << "a bundle of another pod";

	b.put("real/config.json", R"({"annotations":{
		"io.kubernetes.cri.sandbox-name":"a","io.kubernetes.cri.sandbox-namespace":"b"}})");
	std::system(("mkdir -p '" + b.dir + "/c2' && ln -s ../real/config.json '" + b.dir +
		     "/c2/config.json'").c_str());
	EXPECT_TRUE(b.read("real", "x").found);
	EXPECT_FALSE(b.read("c2", "x").found) << "config.json through a symbolic link";

	b.put("c3/config.json", "{\"annotations\": {\"io.kubernetes.cri.sandbox-name\": ");
	EXPECT_FALSE(b.read("c3", "x").found) << "truncated JSON";
	b.put("c4/config.json", R"({"annotations":{"io.kubernetes.cri.sandbox-name":"a"}})");
	EXPECT_FALSE(b.read("c4", "x").found) << "no namespace";
	EXPECT_FALSE(b.read("../c1", "x").found) << "an id that is a path";
	EXPECT_FALSE(b.read("", "x").found);
	std::system(("mkdir -p '" + b.dir + "/c6' && mkfifo '" + b.dir + "/c6/config.json'").c_str());
	EXPECT_FALSE(b.read("c6", "x").found) << "a FIFO: not read (no wait)";
}

} // namespace
