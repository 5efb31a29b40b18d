"""The attributes of real-sized ads, for ``genpool``'s ``realistic`` pools.

``condor_status -long`` of an 8.9+ startd slot prints about 160 attributes (2-5 kB),
``condor_q -long`` of an idle vanilla job about 85 (2-3 kB); most of them are never read
by matchmaking: daemon and platform facts, monitoring counters, file-transfer settings,
job bookkeeping. This module adds them, modelled on the real ads in
``tests/data/classad-ads/`` (the 8.9.12 slots of ``htc-cmd_status-af_orig_first_test.ads``,
the job of ``htc-pybind-test.old.ad``) and on a modern startd's monitoring attributes.

Rules:

* an attribute the generator already set is never replaced (``fill``): the ones
  matchmaking reads (``Requirements``, ``Start``, ``Rank``, resources, ``KFlops``...) are
  the generator's, decided by the pool's properties;
* the expressions added here (``CpuBusy``, ``DaemonShutdown``, ``PeriodicRemove``,
  ``MemoryUsage``...) are the ones real ads carry and no matchmaking expression reaches;
* values that differ from ad to ad in real pools (monitoring counters, addresses,
  per-job paths, arguments, ``GlobalJobId``) differ here too, drawn from the seeded
  ``random.Random`` given in; nothing reads the clock;
* ``condor_status -long`` / ``condor_q -long`` print attributes sorted by name, case
  ignored (``ordered``).
"""

from __future__ import annotations

import random

#: One ad: attribute name -> value, in print order (``genpool.Ad``).
Ad = list[tuple[str, object]]


class Expr(str):
    """An expression value (``genpool.Expr`` is this class)."""

    __slots__ = ()


def fill(ad: Ad, extra: Ad) -> Ad:
    """``ad`` plus the attributes of ``extra`` it does not have (names case-insensitive)."""
    have = {name.lower() for name, _value in ad}
    return ad + [(name, value) for name, value in extra if name.lower() not in have]


def ordered(ad: Ad) -> Ad:
    """Sorted by name, case ignored, as ``-long`` prints it (a stable sort)."""
    return sorted(ad, key=lambda item: item[0].lower())


# -- slots -----------------------------------------------------------------------

#: (OpSysAndVer) -> (OpSysName, long name, major version, OpSysVer, kernel, platform)
_OS = {
    "AlmaLinux9": ("AlmaLinux", "AlmaLinux release 9.4 (Seafoam Ocelot)", 9, 904,
                   "5.14.0-427.13.1.el9_4.x86_64", "X86_64-AlmaLinux_9.4"),
    "CentOS7": ("CentOS", "CentOS Linux release 7.9.2009 (Core)", 7, 709,
                "3.10.0-1160.119.1.el7.x86_64", "X86_64-CentOS_7.9"),
    "Ubuntu22": ("Ubuntu", "Ubuntu 22.04.4 LTS", 22, 2204,
                 "5.15.0-105-generic", "X86_64-Ubuntu_22.04"),
}
_STARTER_ABILITIES = (
    "HasVM,HasMPI,HasFileTransfer,HasJobDeferral,HasSingularity,HasJobTransferPlugins,"
    "HasPerFileEncryption,HasReconnect,HasTDP,HasJICLocalStdin,HasTransferInputRemaps,"
    "HasSelfCheckpointTransfers,HasJICLocalConfig")
_MONITOR_COUNTERS = ("JobBusyTime", "JobDuration")


def slot_extras(rng: random.Random, *, host: str, ip: str, arch: str, opsys: str,
                cpus: int, memory: int, disk: int, gpus: int, slots: int,
                busy: bool, entered: int, now: int) -> Ad:
    """The attributes a real slot ad has beyond the generator's own, for one slot of a
    machine with ``cpus``/``memory`` (MB)/``disk`` (KB) in ``slots`` slots."""
    name, long_name, major, ver, kernel, platform = _OS.get(
        opsys, ("Linux", opsys, 1, 100, "5.14.0", "X86_64-Linux"))
    if arch == "aarch64":
        kernel = kernel.replace("x86_64", "aarch64")
        platform = platform.replace("X86_64", "aarch64")
    port = rng.randrange(9618, 65000)
    sinful = f"<{ip}:{port}?addrs={ip}-{port}&alias={host}&noUDP&sock=startd_{port}_{port % 997:x}>"
    started = now - rng.randrange(3_600, 40 * 86_400)
    starts = rng.randrange(0, 400)
    busy_time = rng.randrange(0, max(1, now - started))
    extras: Ad = [
        ("AcceptedWhileDraining", False),
        ("AddressV1", f'{{[ p="primary"; a="{ip}"; port={port}; n="Internet"; '
                      f'alias="{host}"; spid="startd_{port}"; noUDP=true; ]}}'),
        ("AuthenticatedIdentity", f"condor@{host.split('.', 1)[-1]}"),
        ("AuthenticationMethod", "FS"),
        ("CanHibernate", True),
        ("ClockDay", 3),
        ("ClockMin", 1_037),
        ("COLLECTOR_HOST_STRING", "cm.example.org:9618"),
        ("CondorLoadAvg", float(cpus if busy else 0)),
        ("CondorPlatform", f"$CondorPlatform: {platform} $"),
        ("ConsoleIdle", now - started),
        ("CpuBusy", Expr("((LoadAvg - CondorLoadAvg) >= 0.5)")),
        ("CpuBusyTime", 0),
        ("CpuCacheSize", 32_768),
        ("CpuFamily", 25 if arch != "aarch64" else 0),
        ("CpuIsBusy", False),
        ("CpuModelNumber", 1 if arch != "aarch64" else 0),
        ("DaemonCoreDutyCycle", round(rng.random() * 0.02, 6)),
        ("DaemonLastReconfigTime", started),
        ("DaemonShutdown", Expr("time() - DaemonStartTime > 100 * 86400")),
        ("DaemonStartTime", started),
        ("DetectedCpus", cpus),
        ("DetectedMemory", memory),
        ("EnteredCurrentState", entered),
        ("ExpectedMachineGracefulDrainingBadput", rng.randrange(0, 500_000)),
        ("ExpectedMachineGracefulDrainingCompletion", now + rng.randrange(0, 86_400)),
        ("ExpectedMachineQuickDrainingBadput", rng.randrange(0, 500_000)),
        ("ExpectedMachineQuickDrainingCompletion", now + rng.randrange(0, 3_600)),
        ("has_avx", arch != "aarch64"),
        ("has_avx2", arch != "aarch64"),
        ("has_sse4_1", arch != "aarch64"),
        ("has_sse4_2", arch != "aarch64"),
        ("has_ssse3", arch != "aarch64"),
        ("HasFileTransferPluginMethods", "data,file,http,https,s3"),
        ("HasIOProxy", True),
        ("HasJICLocalConfig", True),
        ("HasJICLocalStdin", True),
        ("HasJobDeferral", True),
        ("HasJobTransferPlugins", True),
        ("HasMPI", True),
        ("HasPerFileEncryption", True),
        ("HasReconnect", True),
        ("HasSelfCheckpointTransfers", True),
        ("HasTDP", True),
        ("HasTransferInputRemaps", True),
        ("HasUserNamespaces", True),
        ("HasVM", False),
        ("HibernationLevel", 0),
        ("HibernationState", "NONE"),
        ("HibernationSupportedStates", "S3,S4,S5"),
        ("IsLocalStartd", False),
        ("IsWakeAble", False),
        ("IsWakeOnLanEnabled", False),
        ("IsWakeOnLanSupported", False),
        ("JobPreemptions", rng.randrange(0, 5)),
        ("JobRankPreemptions", 0),
        ("JobStarts", starts),
        ("JobUserPrioPreemptions", rng.randrange(0, 3)),
        ("KeyboardIdle", now - started),
        ("LastBenchmark", started + 15),
        ("MachineMaxVacateTime", Expr("10 * 60")),
        ("MachineResources", "Cpus Memory Disk Swap" + (" GPUs" if gpus else "")),
        ("MaxJobRetirementTime", 0),
        ("MonitorSelfAge", now - started),
        ("MonitorSelfCPUUsage", round(rng.random() * 0.5, 6)),
        ("MonitorSelfImageSize", rng.randrange(40_000, 90_000)),
        ("MonitorSelfRegisteredSocketCount", rng.randrange(0, 8)),
        ("MonitorSelfResidentSetSize", rng.randrange(12_000, 40_000)),
        ("MonitorSelfSecuritySessions", rng.randrange(5, 60)),
        ("MonitorSelfTime", now - rng.randrange(0, 300)),
        ("MyAddress", sinful),
        ("NumPids", rng.randrange(1, 12) if busy else 0),
        ("OpSysLegacy", "LINUX"),
        ("OpSysLongName", long_name),
        ("OpSysMajorVer", major),
        ("OpSysName", name),
        ("OpSysShortName", name),
        ("OpSysVer", ver),
        ("RecentDaemonCoreDutyCycle", round(rng.random() * 0.02, 6)),
        ("RecentJobPreemptions", 0),
        ("RecentJobRankPreemptions", 0),
        ("RecentJobStarts", rng.randrange(0, 6)),
        ("RecentJobUserPrioPreemptions", 0),
        ("RetirementTimeRemaining", 0),
        ("SingularityVersion", "apptainer version 1.3.4-1.el9"),
        ("SlotTypeID", 1 if slots == 1 else 0),
        ("StartdIpAddr", sinful),
        ("StarterAbilityList", _STARTER_ABILITIES),
        ("SubnetMask", "255.255.252.0"),
        ("TimeToLive", 2_147_483_647),
        ("TotalCondorLoadAvg", float(cpus if busy else 0)),
        ("TotalDisk", disk),
        ("TotalLoadAvg", round(rng.random() * cpus, 2)),
        ("TotalSlotCpus", max(1, cpus // slots)),
        ("TotalSlotDisk", float(disk // slots)),
        ("TotalSlotMemory", memory // slots),
        ("TotalSlots", slots),
        ("TotalTimeClaimedBusy", busy_time),
        ("TotalTimeClaimedIdle", rng.randrange(0, 600)),
        ("TotalTimeUnclaimedIdle", rng.randrange(0, 86_400)),
        ("TotalVirtualMemory", memory * 1_024 + 8_388_608),
        ("Unhibernate", Expr("MY.MachineLastMatchTime =!= undefined")),
        ("UpdateSequenceNumber", rng.randrange(1, 10_000)),
        ("UpdatesHistory", "0x00000000000000000000000000000000"),
        ("UpdatesLost", 0),
        ("UpdatesSequenced", rng.randrange(1, 10_000)),
        ("UpdatesTotal", rng.randrange(1, 10_000)),
        ("UtsnameMachine", arch.lower()),
        ("UtsnameNodename", host),
        ("UtsnameRelease", kernel),
        ("UtsnameSysname", "Linux"),
        ("UtsnameVersion", "#1 SMP PREEMPT_DYNAMIC Thu Apr 25 09:27:40 UTC 2024"),
        ("VirtualMemory", memory * 1_024 // slots),
        ("WakeOnLanEnabledFlags", "NONE"),
        ("WakeOnLanSupportedFlags", "NONE"),
    ]
    for counter in _MONITOR_COUNTERS:
        count = rng.randrange(0, starts + 1)
        extras += [(f"{counter}Count", count), (f"Recent{counter}Count", min(count, 5)),
                   (f"{counter}Avg", round(rng.random() * 30_000, 3)),
                   (f"Recent{counter}Avg", round(rng.random() * 30_000, 3))]
    if gpus:
        extras += [
            ("DetectedGPUs", ", ".join(f"GPU-{rng.getrandbits(32):08x}" for _ in range(gpus))),
            ("GPUs_Capability", 8.0),
            ("GPUs_DeviceName", "NVIDIA A100-SXM4-40GB"),
            ("GPUs_DriverVersion", 12.4),
            ("GPUs_GlobalMemoryMb", 40_338),
            ("GPURAMMB", 40_338),
        ]
    return extras


def claim_extras(rng: random.Random, *, job_id: str, start: int, now: int,
                 submit_host: str) -> Ad:
    """What a claimed slot carries about the job it runs (running jobs are not in the
    queue: ``job_id`` names one of another cluster range)."""
    cluster = job_id.split(".", 1)[0]
    return [
        ("ClientMachine", submit_host),
        ("GlobalJobId", f"{submit_host}#{job_id}#{start - rng.randrange(60, 86_400)}"),
        ("ImageSize", rng.randrange(2_000, 4_000_000)),
        ("JobId", job_id),
        ("JobUniverse", 5),
        ("LastPeriodicCheckpoint", start),
        ("NumPids", rng.randrange(1, 12)),
        ("PublicClaimId", f"<10.0.0.1:9618>#{start}#{cluster}#..."),
        ("RemoteAutoregroup", False),
        ("RemoteNegotiatingGroup", "<none>"),
        ("TotalClaimRunTime", now - start),
        ("WorkingCM", "cm.example.org"),
    ]


# -- jobs ------------------------------------------------------------------------


def job_extras(rng: random.Random, *, owner: str, cluster: int, proc: int, qdate: int,
               procs: int, submit_host: str, cluster_seed: int) -> Ad:
    """The attributes of an idle vanilla job as ``condor_q -long`` prints it, beyond the
    generator's own. Per job: paths and arguments naming the proc; per cluster (seeded
    by ``cluster_seed``): the executable, its size, the environment, the input size."""
    crng = random.Random(cluster_seed)
    exe_kb = crng.randrange(20, 80_000)
    input_mb = crng.randrange(0, 2_000)
    tag = f"{cluster}.{proc}"
    work = f"/home/{owner}/work/{cluster}"
    return [
        ("Args", f"--input in/{proc:05d}.dat --seed {crng.randrange(1 << 30) + proc} "
                 f"--out out/{proc:05d}"),
        ("BufferBlockSize", 32_768),
        ("BufferSize", 524_288),
        ("CommittedSlotTime", 0),
        ("CommittedSuspensionTime", 0),
        ("CommittedTime", 0),
        ("CompletionDate", 0),
        ("CondorPlatform", "$CondorPlatform: x86_64_AlmaLinux9 $"),
        ("CondorVersion", "$CondorVersion: 24.0.4 2025-02-05 BuildID: 781123 $"),
        ("CoreSize", 0),
        ("CumulativeSlotTime", 0),
        ("CumulativeSuspensionTime", 0),
        ("CurrentHosts", 0),
        ("DiskUsage", input_mb * 1_024 + exe_kb),
        ("Environment", f"OMP_NUM_THREADS=1 RUN_TAG={cluster} HOME=/home/{owner}"),
        ("Err", f"{work}/log/{tag}.err"),
        ("ExecutableSize", exe_kb),
        ("ExitBySignal", False),
        ("ExitStatus", 0),
        ("FileSystemDomain", submit_host),
        ("ImageSize", exe_kb),
        ("In", "/dev/null"),
        ("JobBatchName", f"run-{cluster}"),
        ("JobLeaseDuration", 2_400),
        ("JobNotification", 0),
        ("JobSubmitMethod", 0),
        ("KillSig", "SIGTERM"),
        ("LastSuspensionTime", 0),
        ("LeaveJobInQueue", False),
        ("LocalSysCpu", 0.0),
        ("LocalUserCpu", 0.0),
        ("MaxHosts", 1),
        ("MemoryUsage", Expr("((ResidentSetSize + 1023) / 1024)")),
        ("MinHosts", 1),
        ("MyType", "Job"),
        ("NumCkpts", 0),
        ("NumJobCompletions", 0),
        ("NumJobStarts", 0),
        ("NumRestarts", 0),
        ("NumSystemHolds", 0),
        ("OnExitHold", False),
        ("OnExitRemove", True),
        ("Out", f"{work}/log/{tag}.out"),
        ("PeriodicHold", Expr("(JobStatus == 2) && (time() - JobCurrentStartDate) > 3 * 86400")),
        ("PeriodicRelease", Expr("(NumJobStarts < 5) && (HoldReasonCode == 13)")),
        ("PeriodicRemove", Expr("(JobStatus == 5) && (time() - EnteredCurrentStatus) "
                                "> 14 * 86400")),
        ("RemoteSysCpu", 0.0),
        ("RemoteUserCpu", 0.0),
        ("RemoteWallClockTime", 0.0),
        ("RootDir", "/"),
        ("StreamErr", False),
        ("StreamOut", False),
        ("SubmitterGlobalJobId", f"{submit_host}#{tag}#{qdate}"),
        ("TotalSubmitProcs", procs),
        ("TotalSuspensions", 0),
        ("TransferIn", False),
        ("TransferInput", f"in/{proc:05d}.dat,{work}/common/config.json,"
                          f"/home/{owner}/lib/model-{cluster % 17}.tar.gz"),
        ("TransferInputSizeMB", input_mb),
        ("TransferOutput", f"out/{proc:05d}"),
        ("UserLog", f"{work}/log/cluster{cluster}.log"),
        ("WantCheckpoint", False),
        ("WantRemoteIO", True),
        ("WantRemoteSyscalls", False),
        ("WhenToTransferOutput", "ON_EXIT"),
        ("x509userproxysubject", f"/DC=org/DC=example/OU=People/CN={owner} {rng.randrange(1000)}"),
    ]
