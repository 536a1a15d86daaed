#!/usr/bin/env bash
# Starts one container the way a container runtime does, without one. Run it as root inside fresh
# namespaces, which pod.ts does:
#   unshare --mount --pid --net --uts --ipc --fork --kill-child bash launch.sh
# so that it is PID 1 of its own PID namespace; it ends by exec'ing the container's process, which then is
# PID 1, as in a pod. Inputs, all set by pod.ts:
#   POD_ROOT      empty folder where the root file system is mounted
#   POD_LOWER     overlay lower layers, topmost first, ':'-separated (the image)
#   POD_UPPER, POD_WORK  optional: a writable upper layer (to record writes); absent: the root is read-only
#   POD_MOUNTS    file of NUL-separated triples SOURCE TARGET ro|rw: volumes and kubelet-managed files
#   POD_HOSTNAME  the pod name
#   POD_ADDRESSES space-separated addresses put on the loopback device (service IP, pod IP)
#   POD_BRIDGE    optional file of NUL-separated words: a command that forwards sockets (bridge.ts); it must
#                 create POD_BRIDGE_READY once it listens. It gets launch.sh's stdin; the process gets none.
#   POD_ENV, POD_ARGV  files of NUL-separated words: the process' whole environment and its argv
#   POD_UID, POD_GID, POD_WORKDIR  the user and working directory of the process
#   POD_STARTED   file created just before the final exec
set -euo pipefail

root="$POD_ROOT"
if [ -n "${POD_UPPER:-}" ]; then
  mount -t overlay overlay -o "lowerdir=$POD_LOWER,upperdir=$POD_UPPER,workdir=$POD_WORK" "$root"
else
  # Without an upper layer an overlay cannot be written at all: readOnlyRootFilesystem.
  mount -t overlay overlay -o "ro,lowerdir=$POD_LOWER" "$root"
fi

# What runc mounts in every container: /proc of the new PID namespace, a small /dev, read-only /sys.
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t tmpfs -o nosuid,mode=0755,size=65536k tmpfs "$root/dev"
for dev in null zero full random urandom tty; do
  touch "$root/dev/$dev"
  mount --bind "/dev/$dev" "$root/dev/$dev"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir "$root/dev/shm"
mount -t tmpfs -o nosuid,nodev,noexec,mode=1777,size=65536k shm "$root/dev/shm"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"

# Volumes (emptyDir, the service-account token) and /etc/hosts, /etc/hostname, /etc/resolv.conf.
mapfile -d '' mounts < "$POD_MOUNTS"
for ((i = 0; i < ${#mounts[@]}; i += 3)); do
  source="${mounts[i]}" target="$root${mounts[i + 1]}" mode="${mounts[i + 2]}"
  mount --bind "$source" "$target"
  if [ "$mode" = ro ]; then mount -o remount,bind,ro "$target"; fi
done

# The pod's network: loopback only, with the service and pod addresses on it.
ip link set lo up
for address in $POD_ADDRESSES; do ip addr add "$address/32" dev lo; done
hostname "$POD_HOSTNAME"

if [ -n "${POD_BRIDGE:-}" ]; then
  mapfile -d '' bridge < "$POD_BRIDGE"
  # Explicit stdin: the test's pipe, whose end tells the bridge to stop the pod (bridge.ts).
  "${bridge[@]}" 0<&0 &
  for ((i = 0; i < 300; i++)); do
    [ -e "$POD_BRIDGE_READY" ] && break
    kill -0 $! 2>/dev/null || { echo "launch.sh: the socket bridge exited" >&2; exit 1; }
    sleep 0.1
  done
  [ -e "$POD_BRIDGE_READY" ] || { echo "launch.sh: the socket bridge did not start within 30 s" >&2; exit 1; }
fi

# The process: only its own environment (env -i), no new privileges, and no capabilities but the four needed
# to enter the root, change into the user's 0700 working directory and switch user; switching to a non-root
# UID then clears them. Supplementary groups are dropped.
exec 0</dev/null # a container's stdin (stdin: false in the Deployment)
: > "$POD_STARTED" # what follows only exec's: this PID is now the container's process
mapfile -d '' environment < "$POD_ENV"
mapfile -d '' argv < "$POD_ARGV"
exec /usr/bin/env -i "${environment[@]}" \
  /usr/bin/setpriv --no-new-privs --inh-caps=-all --bounding-set=-all,+setuid,+setgid,+sys_chroot,+dac_read_search -- \
  /usr/bin/unshare --root="$root" --wd="$POD_WORKDIR" --setgid="$POD_GID" --setuid="$POD_UID" -- "${argv[@]}"
