-- SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
-- A counter and its testbench for clients/compilers_test.py: GHDL's LLVM
-- back end (ghdl-llvm) compiles both through the LLVM-C API of libLLVM-14.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
entity counter is
  port (clk, rst : in std_logic; q : out unsigned(7 downto 0));
end entity;
architecture rtl of counter is
  signal r : unsigned(7 downto 0) := (others => '0');
begin
  process (clk) begin
    if rising_edge(clk) then
      if rst = '1' then r <= (others => '0'); else r <= r + 1; end if;
    end if;
  end process;
  q <= r;
end architecture;
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
entity tb is end entity;
architecture sim of tb is
  signal clk, rst : std_logic := '0';
  signal q : unsigned(7 downto 0);
begin
  dut : entity work.counter port map (clk, rst, q);
  process begin
    rst <= '1'; clk <= '0'; wait for 5 ns; clk <= '1'; wait for 5 ns; rst <= '0';
    for i in 1 to 20 loop clk <= '0'; wait for 5 ns; clk <= '1'; wait for 5 ns; end loop;
    report "q = " & integer'image(to_integer(q));
    wait;
  end process;
end architecture;
