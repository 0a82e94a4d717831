use strict; my $t0=time; my %h; my @w;
opendir(my $d, "/usr/share/perl/5.36") or die; my @f = map {"/usr/share/perl/5.36/$_"} grep {/\.pm$/} readdir($d);
while (time-$t0 < 60) { for my $f (@f) { open(my $fh,'<',$f) or next; local $/; my $s=<$fh>; @w = ($s =~ /(\w+)/g); $h{$_}++ for @w; my @s = sort { length($a)<=>length($b) or $a cmp $b } @w; my $j = join(",", reverse @s); $j =~ s/(\w)(\w*)/\U$1\E$2/g; last if time-$t0 >= 60; } }
print scalar(keys %h), "\n";
