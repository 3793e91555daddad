"""Integer arithmetic: signs of division and remainder, fmod, bitwise ops, shifts, overflow."""

import torch

a = torch.tensor([7, -7, 7, -7])
b = torch.tensor([2, 2, -2, -2])
print(a // b, a % b, torch.fmod(a, b), torch.remainder(a, b))
print(torch.div(a, b), torch.div(a, b, rounding_mode="trunc"), torch.floor_divide(a, b))
print(a / b, (a / b).dtype, torch.true_divide(a, b))
fa, fb = a.float(), b.float()
print(fa // fb, fa % fb, torch.fmod(fa, fb), torch.fmod(fa, 1.5), fa % -1.5)
print(torch.tensor([5.5, -5.5]) % 2, torch.tensor(-0.5) // 1, torch.remainder(-3, torch.tensor(5)))
print(a & 3, a | 8, a ^ b, ~a, torch.bitwise_and(a, b), torch.bitwise_not(torch.tensor([0, 1])))
print(torch.tensor([1, 2, 4]) << 2, torch.tensor([16, -16]) >> 2)
print(torch.bitwise_left_shift(torch.tensor([1]), 3), torch.tensor([True, False]) ^ True)
big = torch.tensor([2**62, -(2**62)])
print(big, big * 2, big + big, (big // 3).tolist())
i32 = torch.tensor([2**31 - 1], dtype=torch.int32)
print(i32 + 1, (i32 + 1).dtype, i32.to(torch.int64) + 1)
u8 = torch.tensor([250, 5], dtype=torch.uint8)
print(u8 + 10, u8 - 10, u8 * 2, -u8, u8.dtype)
i8 = torch.tensor([100, -100], dtype=torch.int8)
print(i8 + i8, i8.abs(), i8 // 3, i8 % 7)
print(torch.tensor([3, -3]).abs(), torch.tensor([3, -3]).sign(), torch.tensor([-2, 2]).neg())
print(
    torch.tensor([2, 3]) ** 3,
    torch.tensor([2]) ** torch.tensor([10]),
    torch.pow(2, torch.arange(4)),
)
print(torch.tensor([4, 9]).sqrt(), torch.tensor([1, 2]).exp(), torch.tensor([1, 8]).float().log2())
print(
    torch.gcd(torch.tensor([12, 18]), torch.tensor([8, 27])),
    torch.lcm(torch.tensor([4]), torch.tensor([6])),
)
print(torch.clamp(a, -3, 3), a.clamp(min=0), a.clamp(max=-1), torch.clip(a, -1, 1))
print(a.clamp(torch.tensor([0, 0, -10, -10]), torch.tensor([5, 5, 5, 5])))
print(torch.tensor([1, 2, 3]).sum() / 2, torch.tensor([1, 2, 3]).float().mean())
print(a.max(), a.min(), a.argmax(), a.sum(), a.prod(), a.cumsum(0), a.cumprod(0))
print(a == b, a != b, a > b, a <= b, torch.eq(a, 7), torch.ge(a, -7).all())
print(torch.tensor([1, 2]) == torch.tensor([1.0, 2.5]), torch.tensor(3) < 3.5)
print(torch.tensor([0, 1, 2]).bool(), torch.tensor([0.0, 0.3]).bool(), torch.tensor([True]).int())
print(torch.tensor([1.7, -1.7, 2.5, -2.5, 0.5]).long(), torch.tensor([2.5, 3.5, -0.5]).round())
print(
    torch.tensor([1.25, 2.675]).round(decimals=1),
    torch.tensor([1.5]).trunc(),
    torch.tensor([-1.5]).frac(),
)
print(
    torch.tensor([1.5, -1.5]).floor(),
    torch.tensor([1.5, -1.5]).ceil(),
    torch.tensor([3]).float() / 0,
)
try:
    torch.tensor([1, 2]) // torch.tensor([0, 1])
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.tensor([1.0, -1.0, 0.0]) / 0, torch.tensor([0.0]).sign(), torch.tensor([-0.0]).abs())
