// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A Rust program for clients/rustc_test.py: Debian's rustc turns it into
// LLVM IR through the LLVM-C API (generics, trait objects, closures,
// iterators, threads, panics and unwinding, 128-bit arithmetic, formatting),
// and what it prints must not depend on whether ownsan watched the build.
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::rc::Rc;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> String;
}

struct Rect {
    w: f64,
    h: f64,
}

struct Circle {
    r: f64,
}

impl Shape for Rect {
    fn area(&self) -> f64 {
        self.w * self.h
    }
    fn name(&self) -> String {
        format!("rect {}x{}", self.w, self.h)
    }
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.r * self.r
    }
    fn name(&self) -> String {
        format!("circle r={}", self.r)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Num(i64),
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
}

fn eval(e: &Expr) -> i64 {
    match e {
        Expr::Num(n) => *n,
        Expr::Add(a, b) => eval(a).wrapping_add(eval(b)),
        Expr::Mul(a, b) => eval(a).wrapping_mul(eval(b)),
        Expr::Neg(a) => eval(a).wrapping_neg(),
    }
}

fn build(depth: u32, seed: &mut u64) -> Expr {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    if depth == 0 {
        return Expr::Num((*seed >> 40) as i64 % 100);
    }
    match (*seed >> 33) % 3 {
        0 => Expr::Add(Box::new(build(depth - 1, seed)), Box::new(build(depth - 1, seed))),
        1 => Expr::Mul(Box::new(build(depth - 1, seed)), Box::new(build(depth - 1, seed))),
        _ => Expr::Neg(Box::new(build(depth - 1, seed))),
    }
}

struct Matrix<const N: usize> {
    m: [[i128; N]; N],
}

impl<const N: usize> Matrix<N> {
    fn identity() -> Self {
        let mut m = [[0i128; N]; N];
        for (i, row) in m.iter_mut().enumerate() {
            row[i] = 1;
        }
        Matrix { m }
    }
    fn mul(&self, o: &Self) -> Self {
        let mut m = [[0i128; N]; N];
        for i in 0..N {
            for j in 0..N {
                m[i][j] = (0..N).map(|k| self.m[i][k] * o.m[k][j]).sum::<i128>() % 1_000_000_007_000;
            }
        }
        Matrix { m }
    }
}

impl<const N: usize> fmt::Display for Matrix<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in &self.m {
            let cells: Vec<String> = row.iter().map(|c| c.to_string()).collect();
            writeln!(f, "[{}]", cells.join(" "))?;
        }
        Ok(())
    }
}

#[derive(Debug)]
struct Node {
    value: u32,
    children: Vec<Rc<RefCell<Node>>>,
}

fn tree_sum(n: &Rc<RefCell<Node>>) -> u64 {
    let node = n.borrow();
    node.value as u64 + node.children.iter().map(tree_sum).sum::<u64>()
}

fn generic_max<T: PartialOrd + Copy>(xs: &[T]) -> Option<T> {
    xs.iter().copied().fold(None, |acc, x| match acc {
        Some(a) if a >= x => Some(a),
        _ => Some(x),
    })
}

fn sieve(n: usize) -> Vec<usize> {
    let mut is = vec![true; n + 1];
    is[0] = false;
    if n >= 1 {
        is[1] = false;
    }
    let mut i = 2;
    while i * i <= n {
        if is[i] {
            let mut j = i * i;
            while j <= n {
                is[j] = false;
                j += i;
            }
        }
        i += 1;
    }
    is.iter().enumerate().filter(|(_, &p)| p).map(|(i, _)| i).collect()
}

fn main() {
    let shapes: Vec<Box<dyn Shape>> = vec![
        Box::new(Rect { w: 2.0, h: 3.5 }),
        Box::new(Circle { r: 1.25 }),
        Box::new(Rect { w: 0.5, h: 8.0 }),
    ];
    for s in &shapes {
        println!("{}: {:.4}", s.name(), s.area());
    }
    let total: f64 = shapes.iter().map(|s| s.area()).sum();
    println!("total area {:.6}", total);

    let mut seed = 42u64;
    let exprs: Vec<Expr> = (0..8).map(|d| build(d, &mut seed)).collect();
    let values: Vec<i64> = exprs.iter().map(eval).collect();
    println!("exprs {:?}", values);
    println!("first expr {:?}", exprs[2]);

    let mut fib = Matrix::<2> { m: [[1, 1], [1, 0]] };
    let mut acc = Matrix::<2>::identity();
    let mut e = 90u32;
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.mul(&fib);
        }
        fib = fib.mul(&fib);
        e >>= 1;
    }
    print!("{}", acc);

    let leaf = |v| Rc::new(RefCell::new(Node { value: v, children: vec![] }));
    let root = Rc::new(RefCell::new(Node { value: 1, children: vec![leaf(2), leaf(3)] }));
    root.borrow().children[0].borrow_mut().children.push(leaf(10));
    println!("tree sum {} (root has {} children)", tree_sum(&root), root.borrow().children.len());

    let mut words: HashMap<String, usize> = HashMap::new();
    let text = "the quick brown fox jumps over the lazy dog the end";
    for w in text.split_whitespace() {
        *words.entry(w.to_string()).or_insert(0) += 1;
    }
    let sorted: BTreeMap<_, _> = words.iter().collect();
    println!("words {:?}", sorted);

    let primes = sieve(200);
    println!("primes {} last {:?} max {:?}", primes.len(), primes.last(), generic_max(&primes));
    println!("max float {:?}", generic_max(&[1.5f32, -2.0, 9.25, 3.0]));

    let (tx, rx) = mpsc::channel();
    let shared = Arc::new(Mutex::new(VecDeque::new()));
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            let tx = tx.clone();
            let shared = Arc::clone(&shared);
            thread::spawn(move || {
                let s: u64 = (0..10_000u64).map(|i| (i * (t + 1)) % 7).sum();
                shared.lock().unwrap().push_back(t);
                tx.send((t, s)).unwrap();
            })
        })
        .collect();
    drop(tx);
    for h in handles {
        h.join().unwrap();
    }
    let mut results: Vec<(u64, u64)> = rx.iter().collect();
    results.sort();
    println!("threads {:?} queue {}", results, shared.lock().unwrap().len());

    std::panic::set_hook(Box::new(|_| {})); // (the panic below is expected)
    let caught = std::panic::catch_unwind(|| {
        let v: Vec<u32> = Vec::new();
        v.iter().map(|x| x + 1).max().expect("empty on purpose")
    });
    println!("panic caught: {}", caught.is_err());

    let big: u128 = (1..=30u128).product();
    let wide = (big as i128).wrapping_mul(-3) >> 7;
    println!("30! = {} wide {}", big, wide);
}
