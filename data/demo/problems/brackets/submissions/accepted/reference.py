import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    s = data[1][:n]
    stack = [-1]
    best = 0
    cnt = 0
    for i, ch in enumerate(s):
        if ch == 40:  # '('
            stack.append(i)
        else:
            stack.pop()
            if stack:
                length = i - stack[-1]
                if length > best:
                    best = length
                    cnt = 1
                elif length == best:
                    cnt += 1
            else:
                stack.append(i)
    if best == 0:
        cnt = 1
    print(best, cnt)


main()
