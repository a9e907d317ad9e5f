import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = [int(x) for x in data[1:n + 1]]
    order = sorted(set(a))
    pos = {v: i + 1 for i, v in enumerate(order)}
    size = len(order)
    tree = [0] * (size + 1)

    answer = 0
    for i in range(n):
        r = pos[a[i]]
        k = r
        not_greater = 0
        while k > 0:
            not_greater += tree[k]
            k -= k & -k
        answer += i - not_greater
        k = r
        while k < size:
            tree[k] += 1
            k += k & -k
    print(answer)


main()
