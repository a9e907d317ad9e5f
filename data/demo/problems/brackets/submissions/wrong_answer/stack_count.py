import sys

def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    s = data[1]
    stack = [-1]
    best = 0
    count = 0
    for i in range(n):
        if s[i] == '(':
            stack.append(i)
        else:
            stack.pop()
            if not stack:
                stack.append(i)
            else:
                length = i - stack[-1]
                if length > best:
                    best = length
                    count = 1
                elif length == best:
                    count += 1
    print(best, count)

main()
